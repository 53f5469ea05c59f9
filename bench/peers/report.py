"""Turns the rounds bench.py measured into table rows, and the rows into the
markdown table and the JSON file. No runtime is imported here."""
import pathlib
import statistics
import subprocess

import common


def nearest_rank(sorted_values, pct):
    """The nearest-rank percentile, the definition `tfhost bench` uses, so
    tfhost's p50 and the peers' are the same statistic."""
    if not sorted_values:
        return None
    k = max(1, -(-pct * len(sorted_values) // 100))
    return sorted_values[int(k) - 1]


def cpu_model():
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def git_commit(root):
    p = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    return (p.stdout.strip() or "unknown") + ("+dirty" if dirty else "")


def _median(rounds, key):
    vals = [r[key] for r in rounds if r.get(key) is not None]
    return statistics.median(vals) if vals else None


def row(model, setting, threads, batch, runtime, rounds, failure, outputs, reference, conversion):
    """One table row: medians over the rounds, the cross-check of the first
    round's outputs, and notes for everything a reader should not miss."""
    r = {"model": model, "setting": setting, "threads": threads, "batch": batch, "runtime": runtime,
         "rounds_ok": len(rounds), "rounds": rounds, "error": failure, "notes": []}
    if conversion is not None:
        r["conversion"] = conversion
    for key in ("p50_ms", "items_per_s", "cold_start_ms", "load_ms", "first_run_ms", "cpu_cores_used", "min_ms"):
        r[key] = _median(rounds, key)
    rss = [x["peak_rss_bytes"] for x in rounds if x.get("peak_rss_bytes")]
    r["peak_rss_mib"] = max(rss) / 2**20 if rss else None
    if failure:
        r["notes"].append(failure if not rounds else f"{failure} (after {len(rounds)} good rounds)")
    if outputs is not None and reference:
        err, key, problems = common.compare(outputs, reference)
        r["max_rel_err"], r["max_rel_err_output"] = err, key
        if problems:
            r["notes"].append(f"wrong outputs: {problems}")
            r["outputs_wrong"] = True
        elif err > common.REL_ERR_FLAG:
            r["notes"].append(f"rel err {err:.1e} > {common.REL_ERR_FLAG:g} (in {key})")
    info = rounds[0].get("info", {}) if rounds else {}
    if info.get("names"):
        r["notes"].append(info["names"])
    if runtime == "litert" and info.get("xnnpack") is False:
        r["notes"].append("XNNPACK delegate not applied")
    if runtime == "openvino" and info and "f32" not in info.get("inference_precision", "") \
            and "float32" not in info.get("inference_precision", ""):
        r["notes"].append(f"inference precision {info.get('inference_precision')}")
    cores = r["cpu_cores_used"]
    if cores is not None and cores > threads * 1.25 + 0.1:
        r["notes"].append(f"used {cores:.1f} cores for {threads} thread(s)")
    return r


def add_ratios(rows):
    """p50 over tfhost's p50 at the same model and setting: above 1, tfhost
    is faster by that factor."""
    base = {(x["model"], x["setting"]): x["p50_ms"] for x in rows if x["runtime"] == "tfhost"}
    for x in rows:
        b = base.get((x["model"], x["setting"]))
        x["p50_vs_tfhost"] = x["p50_ms"] / b if b and x["p50_ms"] else None


def _fmt(v, digits=1):
    if v is None:
        return "–"
    if isinstance(v, float) and v != 0 and abs(v) < 10 ** -digits:
        return f"{v:.1e}"
    return f"{v:,.{digits}f}"


def _err_cell(x):
    if x.get("outputs_wrong"):
        return "wrong"
    e = x.get("max_rel_err")
    if e is None:
        return "–"
    cell = "0" if e == 0 else f"{e:.1e}"
    return f"**{cell}**" if e > common.REL_ERR_FLAG else cell


def markdown(meta, rows):
    lines = [
        f"Peers benchmark, {meta['started_utc']}, commit {meta['commit']}, {meta['cpus']} CPUs ({meta['cpu']}), "
        f"load average {meta['load_avg_start'][0]:.2f} at start, {meta.get('load_avg_end', [0])[0]:.2f} at end.",
        f"{meta['rounds']} rounds, each {meta['warmup']} warm-up + {meta['runs']} timed runs at batch 1, "
        f"{meta['big_warmup']} + {meta['big_runs']} at the big batch; figures are medians over the rounds.",
        "p50 ÷ tfhost: above 1, tfhost is faster by that factor. Max rel err = max|x − TF| / max|TF| against "
        f"TensorFlow's outputs on the same inputs, bold above {common.REL_ERR_FLAG:g}. Cold start: process start "
        "to first result. Peak RSS: the runtime's process, the highest over the rounds. tfhost_onnx and "
        "tfhost_tflite are tfhost on the very .onnx and .tflite files onnxruntime and litert run.",
        "",
        "| model | setting | runtime | p50 ms | items/s | p50 ÷ tfhost | max rel err vs TF | cold start ms "
        "| peak RSS MiB | notes |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for x in rows:
        setting = f"{x['threads']}t b{x['batch']}"
        ratio = _fmt(x.get("p50_vs_tfhost"), 2)
        notes = "; ".join(x["notes"]).replace("|", "/")
        lines.append(f"| {x['model']} | {setting} | {x['runtime']} | {_fmt(x['p50_ms'], 2)} | "
                     f"{_fmt(x['items_per_s'])} | {ratio} | {_err_cell(x)} | {_fmt(x['cold_start_ms'], 0)} | "
                     f"{_fmt(x['peak_rss_mib'], 0)} | {notes} |")
    return "\n".join(lines) + "\n"


def write(results, meta, prepared, rows):
    models = {}
    for m, (export, conversions) in prepared.items():
        models[m] = {"export": export, "conversions": conversions}
    common.write_json(results / "results.json", {"meta": meta, "models": models, "rows": rows})
    (results / "results.md").write_text(markdown(meta, rows), encoding="utf-8")
