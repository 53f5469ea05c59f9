"""The peers benchmark's driver: exports the models and converts them (both
cached), then times every runtime on every model and setting, each run in a
process of its own, and writes the table and the JSON (report.py).

  scripts/py bench/peers/bench.py          (bench/peers/run.sh sets it up)

Environment (all optional):
  MODELS     models to run, space or comma separated (default: all of
             common.MODELS)
  RUNTIMES   runtimes besides tfhost (default: all); tfhost always runs, as
             every ratio is against it
  SETTINGS   1t_b1 and/or 2t_b32 (2t_b<BIG_BATCH>; default both)
  ROUNDS     rounds per model and setting (default 5); figures are medians
  RUNS       timed runs per round at batch 1 (default 20)
  BIG_RUNS   timed runs per round at the big batch (default 5)
  WARMUP     untimed runs before them at batch 1 (default 3)
  BIG_WARMUP the same at the big batch (default 1)
  BIG_BATCH  the batch of the 2-thread setting (default 32)
  TFHOST     the binary (default build/tfhost)
  RESULTS_DIR  where results/<UTC time>/ goes (default bench/peers/results)
  STEP_TIMEOUT seconds one export, conversion or measured process may take
             (default 1800); past it, that step is recorded as failed
"""
import os
import pathlib
import platform
import shutil
import signal
import subprocess
import sys
import time

import common
import report

PY = sys.executable


def env_list(name, default):
    raw = os.environ.get(name)
    return [x for x in raw.replace(",", " ").split()] if raw else list(default)


def env_int(name, default):
    return int(os.environ.get(name) or default)


def log(msg):
    print(f"# {time.strftime('%H:%M:%S')} {msg}", file=sys.stderr, flush=True)


def spawn(cmd, log_path, timeout):
    """Runs cmd in a process group of its own; returns (exit code or None on
    timeout, wall seconds, rusage). os.wait4 gives this child's own peak RSS
    and CPU time, not a sum over every child so far."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "w", encoding="utf-8") as out:
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = t0 + timeout
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                os.killpg(p.pid, signal.SIGKILL)
                _, status, usage = os.wait4(p.pid, 0)
                p.returncode = -9
                return None, time.time() - t0, usage
            time.sleep(0.005)
        p.returncode = os.waitstatus_to_exitcode(status)
        return p.returncode, time.time() - t0, usage


def log_reason(path):
    try:
        return common.short_reason(pathlib.Path(path).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return "no log"


def prepare(model, batches, runtimes, logs, timeout):
    """Exports and converts what the cache lacks. Returns (export record or
    None, {runtime: conversion record}); failures are records, not errors."""
    mdir = common.model_dir(model)
    done = mdir / "export.json"
    if not done.exists() or not all(str(b) in common.read_json(done)["outputs"] for b in batches):
        log(f"export {model} -> {mdir}")
        lp = logs / f"export_{model}.log"
        rc, wall, _ = spawn([PY, str(common.HERE / "models.py"), model, *map(str, batches)], lp, timeout)
        if rc != 0 or not done.exists():
            why = "timeout" if rc is None else log_reason(lp)
            return {"ok": False, "reason": why}, {}
    export = common.read_json(done)
    export["ok"] = True
    conversions = {}
    for runtime in runtimes:
        rt = common.TFHOST_ON_CONVERSION.get(runtime, runtime)
        if rt not in common.CONVERTED or rt in conversions:
            continue
        status = mdir / f"convert_{rt}.json"
        if not status.exists():
            log(f"convert {model} for {rt}")
            lp = logs / f"convert_{model}_{rt}.log"
            rc, _, _ = spawn([PY, str(common.HERE / "convert.py"), rt, model], lp, timeout)
            if not status.exists():
                # The converter died before it could say why (a crash or the
                # timeout); that is cached too, since it would die again.
                why = "timeout" if rc is None else f"converter exited {rc}: {log_reason(lp)}"
                common.write_json(status, {"ok": False, "reason": why})
        conversions[rt] = common.read_json(status)
    return export, conversions


def measure_tfhost(tfhost, model_file, model, threads, batch, runs, warmup, work, logs, tag, timeout):
    """Two fresh processes: `tfhost run`, whose whole life (start, load, first
    inference, writing the outputs, exit) is the cold start and whose outputs
    are cross-checked; then `tfhost bench` for the latencies. `model_file`:
    the SavedModel, or another runtime's conversion (common.CONVERTED)."""
    sm = common.model_dir(model) / model_file
    feeds = []
    for f in sorted(common.inputs_dir(model, batch).glob("*.npy")):
        feeds += ["--input", f"{f.stem}={f}"]
    out_dir = work / "outputs"
    shutil.rmtree(out_dir, ignore_errors=True)
    lp = logs / f"{tag}_run.log"
    rc, wall, _ = spawn([tfhost, "run", str(sm), "--threads", str(threads), *feeds, "--output-dir", str(out_dir)],
                        lp, timeout)
    if rc != 0:
        return {"ok": False, "reason": "timeout" if rc is None else f"run failed: {log_reason(lp)}"}
    cold = wall * 1e3
    lp = logs / f"{tag}_bench.log"
    js = work / "bench.json"
    cmd = [tfhost, "bench", str(sm), "--threads", str(threads), "--runs", str(runs), "--warmup", str(warmup),
           "--cold", "--json", *feeds]
    rc, wall, usage = spawn(["sh", "-c", 'exec "$@" > "$0"', str(js), *cmd], lp, timeout)
    if rc != 0:
        return {"ok": False, "reason": "timeout" if rc is None else f"bench failed: {log_reason(lp)}"}
    doc = common.read_json(js)
    row = doc["results"][0]
    return {
        "ok": True, "p50_ms": row["p50_ms"], "mean_ms": row["mean_ms"], "min_ms": row["min_ms"],
        "items_per_s": batch * 1e3 / row["mean_ms"], "cold_start_ms": cold,
        "load_ms": doc.get("cold", {}).get("load_ms"), "first_run_ms": doc.get("cold", {}).get("first_run_ms"),
        "peak_rss_bytes": usage.ru_maxrss * 1024, "cpu_cores_used": row.get("cpu_cores_used"),
        "outputs": out_dir,
    }


def measure_python(runtime, model, threads, batch, runs, warmup, work, logs, tag, timeout):
    js = work / "worker.json"
    out_dir = work / "outputs"
    shutil.rmtree(out_dir, ignore_errors=True)
    js.unlink(missing_ok=True)
    lp = logs / f"{tag}.log"
    cmd = [PY, str(common.HERE / "worker.py"), runtime, model, "--batch", str(batch), "--threads", str(threads),
           "--runs", str(runs), "--warmup", str(warmup), "--out", str(js), "--save-outputs", str(out_dir),
           "--spawned", repr(time.time())]
    rc, wall, usage = spawn(cmd, lp, timeout)
    if rc != 0 or not js.exists():
        return {"ok": False, "reason": "timeout" if rc is None else f"run failed: {log_reason(lp)}"}
    doc = common.read_json(js)
    lat = sorted(doc["latencies_ms"])
    mean = sum(lat) / len(lat)
    res = {
        "ok": True, "p50_ms": report.nearest_rank(lat, 50), "mean_ms": mean, "min_ms": lat[0],
        "items_per_s": batch * 1e3 / mean, "cold_start_ms": doc["cold_start_ms"], "load_ms": doc["load_ms"],
        "first_run_ms": doc["first_run_ms"], "peak_rss_bytes": usage.ru_maxrss * 1024,
        "cpu_cores_used": doc["cpu_cores_used"], "info": doc["info"], "versions": doc["versions"],
        "outputs": out_dir,
    }
    if runtime == "litert":
        # Whether XNNPACK took the graph is only said in the log.
        res["info"]["xnnpack"] = "XNNPACK delegate" in lp.read_text(encoding="utf-8", errors="replace")
    return res


def order_for(round_index, runtimes):
    """Rounds come in mirrored pairs (A B C, then C B A), so a drift of the
    machine's load over a pair weighs on every runtime alike; each pair
    starts from a different rotation, so no runtime is always first."""
    k = (round_index // 2 * 2) % len(runtimes)
    o = runtimes[k:] + runtimes[:k]
    return o[::-1] if round_index % 2 else o


def measure_setting(cfg, model, sname, export, conversions):
    """Every round of one model and setting; returns the table rows."""
    threads, batch = cfg["settings"][sname]
    runs, warmup = (cfg["runs"], cfg["warmup"]) if batch == 1 else (cfg["big_runs"], cfg["big_warmup"])
    runtimes = cfg["runtimes"]
    failed = {}
    if not export["ok"]:
        failed = {rt: f"export failed: {export['reason']}" for rt in runtimes}
    for rt in runtimes:
        conv = conversions.get(common.TFHOST_ON_CONVERSION.get(rt, rt))
        if conv is not None and not conv["ok"]:
            failed.setdefault(rt, f"conversion failed: {conv['reason']}")
    per_rt, outputs = {rt: [] for rt in runtimes}, {}
    for r in range(cfg["rounds"] if export["ok"] else 0):
        for rt in order_for(r, runtimes):
            if rt in failed:
                continue
            tag = f"{model}_{sname}_{rt}_r{r}"
            log(f"{tag} (load {os.getloadavg()[0]:.2f})")
            args = (model, threads, batch, runs, warmup, cfg["work"] / rt, cfg["logs"], tag, cfg["timeout"])
            if rt == "tfhost":
                res = measure_tfhost(cfg["tfhost"], "saved_model", *args)
            elif rt in common.TFHOST_ON_CONVERSION:
                res = measure_tfhost(cfg["tfhost"], common.CONVERTED[common.TFHOST_ON_CONVERSION[rt]], *args)
            else:
                res = measure_python(rt, *args)
            if not res["ok"]:
                # A failure is deterministic often enough that the rounds
                # after it would only spend time repeating it.
                failed[rt] = res["reason"]
                log(f"  {rt}: {res['reason']}")
                continue
            cfg["versions"].update(res.pop("versions", {}))
            out_dir = res.pop("outputs")
            if rt not in outputs:
                outputs[rt] = common.load_npy_dir(out_dir)
            per_rt[rt].append(res)
    reference = common.load_npy_dir(common.reference_dir(model, batch)) if export["ok"] else {}
    return [report.row(model, sname, threads, batch, rt, per_rt[rt], failed.get(rt), outputs.get(rt), reference,
                       conversions.get(common.TFHOST_ON_CONVERSION.get(rt, rt))) for rt in runtimes]


def main():
    root = common.ROOT
    big = env_int("BIG_BATCH", 32)
    settings = {"1t_b1": (1, 1), f"2t_b{big}": (2, big)}
    models = env_list("MODELS", common.MODELS)
    runtimes = ["tfhost"] + [r for r in env_list("RUNTIMES", common.RUNTIMES[1:]) if r != "tfhost"]
    chosen = env_list("SETTINGS", settings)
    for name, given, known in (("MODELS", models, common.MODELS), ("RUNTIMES", runtimes, common.RUNTIMES),
                               ("SETTINGS", chosen, settings)):
        bad = [x for x in given if x not in known]
        if bad:
            sys.exit(f"bench.py: unknown {name} {' '.join(bad)}; known: {' '.join(known)}")
    tfhost = os.environ.get("TFHOST") or str(root / "build" / "tfhost")
    if not os.access(tfhost, os.X_OK):
        sys.exit(f"bench.py: no tfhost binary at {tfhost} (build it, or set TFHOST)")

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    results = pathlib.Path(os.environ.get("RESULTS_DIR") or common.HERE / "results") / stamp
    version = subprocess.run([tfhost, "version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    cfg = {
        "rounds": env_int("ROUNDS", 5), "runs": env_int("RUNS", 20), "big_runs": env_int("BIG_RUNS", 5),
        "warmup": env_int("WARMUP", 3), "big_warmup": env_int("BIG_WARMUP", 1),
        "timeout": env_int("STEP_TIMEOUT", 1800), "tfhost": tfhost, "runtimes": runtimes,
        "settings": {s: settings[s] for s in chosen}, "versions": {"tfhost": (version.splitlines() or ["?"])[0]},
        "logs": results / "logs", "work": results / "work",
    }
    meta = {k: v for k, v in cfg.items() if k not in ("logs", "work", "timeout")}
    meta.update({
        "started_utc": stamp, "host": platform.node(), "cpus": os.cpu_count(), "cpu": report.cpu_model(),
        "load_avg_start": os.getloadavg(), "commit": report.git_commit(root), "cache": str(common.cache_dir()),
        "rel_err_flag": common.REL_ERR_FLAG,
    })
    log(f"results -> {results}; cache {common.cache_dir()}")
    batches = sorted({settings[s][1] for s in chosen})
    prepared = {m: prepare(m, batches, runtimes, cfg["logs"], cfg["timeout"]) for m in models}
    rows = []
    for model in models:
        for sname in chosen:
            rows += measure_setting(cfg, model, sname, *prepared[model])
            report.add_ratios(rows)
            # Written after every model and setting, so an interrupted run
            # still leaves what it measured.
            meta["load_avg_end"] = os.getloadavg()
            report.write(results, meta, prepared, rows)
    shutil.rmtree(cfg["work"], ignore_errors=True)
    print(report.markdown(meta, rows))
    log(f"wrote {results / 'results.md'} and {results / 'results.json'}")


if __name__ == "__main__":
    main()
