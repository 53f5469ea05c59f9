#!/usr/bin/env python3
"""The device check's speed table: tfhost against PyTorch on the same GPU in the same run.

  gpu_perf_table.py OUTDIR

reads OUTDIR/torch_time.log (scripts/gpu_models.py's JSON lines) and every
OUTDIR/tfhost_bench-MODEL-PRECISION-bBATCHES.log (`tfhost bench --json`,
possibly after notes on stderr) and prints one markdown row per model, batch
and precision: items/s and p50 of each, and tfhost's items/s over PyTorch's.
A cell without a figure says why (not run, failed, skipped); the logs say more.
Plain Python 3, no packages: it runs with whatever python3 the machine has.
"""
import glob
import json
import os
import sys

SETTINGS = [("resnet50", b) for b in (1, 32, 256)] + [("bert_base", b) for b in (1, 32)]
PRECISIONS = ("fp32", "fp16", "bf16")
NAMES = {"resnet50": "ResNet-50, 224x224", "bert_base": "BERT-base, seq 128"}


def torch_results(outdir):
    found, env = {}, {}
    path = os.path.join(outdir, "torch_time.log")
    if not os.path.exists(path):
        return found, env
    for line in open(path, errors="replace"):
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("event") == "env":
            env = r
        elif r.get("event") in ("time", "skip", "error") and "model" in r:
            found[(r["model"], r["batch"], r["precision"])] = r
        elif r.get("event") == "error":  # the whole run: no torch, no GPU
            env["error"] = r["error"]
    return found, env


def first_json(text):
    """The JSON object in a log that may start with notes on stderr."""
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at >= 0:
        try:
            return decoder.raw_decode(text[at:])[0]
        except ValueError:
            at = text.find("{", at + 1)
    return None


def tfhost_results(outdir):
    found = {}
    for path in sorted(glob.glob(os.path.join(outdir, "tfhost_bench-*.log"))):
        parts = os.path.basename(path)[len("tfhost_bench-"):-len(".log")].split("-")
        if len(parts) != 3 or not parts[2].startswith("b"):
            continue
        model, precision, batches = parts[0], parts[1], [int(b) for b in parts[2][1:].split("_") if b.isdigit()]
        text = open(path, errors="replace").read()
        report = first_json(text)
        rows = {r["batch"]: r for r in (report or {}).get("results", [])}
        last = [l for l in text.splitlines() if l.strip()]
        why = last[-1].strip()[:300] if last else "no output (killed at its time limit?)"
        for b in batches:
            found[(model, b, precision)] = rows.get(b) or {"error": why}
    return found


def cell(r):
    if r is None:
        return "not run", "", None
    if "items_per_s" in r:
        return f"{r['items_per_s']:,.1f}", f"{r['p50_ms']:.2f}", r["items_per_s"]
    if "reason" in r:
        return "skipped", "", None
    return "failed", "", None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    torch_found, env = torch_results(outdir)
    tf_found = tfhost_results(outdir)
    print("| model | batch | precision | tfhost items/s | tfhost p50 ms | PyTorch items/s | PyTorch p50 ms | tfhost / PyTorch |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    notes = {}  # reason -> the settings it applies to
    for model, batch in SETTINGS:
        for precision in PRECISIONS:
            if precision == "fp16":
                print(f"| {NAMES[model]} | {batch} | fp16 | not measured | | not measured | | |")
                continue
            t_items, t_p50, t_v = cell(tf_found.get((model, batch, precision)))
            p_r = torch_found.get((model, batch, precision))
            if p_r is None and env.get("error"):
                p_r = {"error": env["error"]}
            p_items, p_p50, p_v = cell(p_r)
            ratio = f"{t_v / p_v:.2f}" if t_v and p_v else ""
            print(f"| {NAMES[model]} | {batch} | {precision} | {t_items} | {t_p50} | {p_items} | {p_p50} | {ratio} |")
            for who, r in (("tfhost", tf_found.get((model, batch, precision))), ("PyTorch", p_r)):
                if r and "items_per_s" not in r:
                    why = f"{who}: {r.get('reason') or r.get('error')}"
                    notes.setdefault(why, []).append(f"{model} b{batch} {precision}")
    print()
    print("fp16: not measured. tfhost's --precision takes fp32, fp32-strict and bf16 (no fp16 path yet), "
          "so there is no tfhost figure to set beside PyTorch's.")
    print("Weights are random (seeded): speeds only. tfhost: `tfhost bench MODEL.onnx --device gpu --threads 0`, "
          "inputs fed from host memory and outputs copied back in each run; fp32 lets the tensor cores use TF32.")
    if any("items_per_s" in r for r in torch_found.values()):
        print(f"PyTorch {env.get('torch')} eager on {env.get('device_name', env.get('device'))}: inputs already "
              f"on the GPU, CUDA-synchronized per iteration; ResNet-50 channels_last; fp32 with TF32 "
              f"(matmul {env.get('fp32_matmul_tf32')}, cuDNN {env.get('fp32_conv_tf32')}); bf16 = "
              f"torch.autocast(bfloat16); cudnn.benchmark on.")
    for why, where in notes.items():
        print(f"{why} ({', '.join(where)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
