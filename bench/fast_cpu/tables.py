#!/usr/bin/env python3
"""Reads the JSON that bench/fast_cpu/run.sh collects (`tfhost bench --json`,
`fma_peak --json`) and prints its markdown table rows, or one value the
script needs, on stdout. Standard library only, so any python3 runs it.

  tables.py field FILE KEY              FILE's top-level KEY ('' if absent)
  tables.py isa_gflops FILE ISA         fma_peak's FMA GFLOP/s for ISA ('' if absent)
  tables.py peak THREADS FILE           rows of the peak table
  tables.py threads FILE...             rows of the 2-vs-1-thread table, one file per round
  tables.py batch32 PEAK2 FILE          the row of the batch 32 table
  tables.py matmul FILE PEAK1 PEAK2     rows of a 512^3 MatMul table (PEAK '' = unknown)
  tables.py cold MODEL FILE...          the row of the cold-start table, one file per process
  tables.py bf16 FILE...                the bf16 table, files alternating fp32, bf16 per round

A figure that is missing or not a number prints as '–'; each target's verdict
is 'met' or 'not met'.
"""
import decimal
import json
import math
import statistics
import sys

MiB = 2**20


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def num(x):
    """x as a float, or None when it is missing or not a number."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    return None if math.isnan(x) else float(x)


def fmt(x, d=1):
    """x with d decimals, ties rounded away from zero as JavaScript's toFixed
    does, which wrote the tables docs/perf.md already holds."""
    x = num(x)
    if x is None:
        return "–"
    if math.isinf(x):
        return str(x)
    x += 0.0  # -0.0 prints as 0
    with decimal.localcontext() as context:
        context.rounding = decimal.ROUND_HALF_UP
        return f"{decimal.Decimal(x):.{d}f}"


def scaled(x, factor):
    x = num(x)
    return None if x is None else x * factor


def ratio(a, b):
    a, b = num(a), num(b)
    return None if a is None or not b else a / b


def verdict(ok):
    return "met" if ok else "not met"


def median(xs):
    return statistics.median(xs)


def peak_arg(text):
    """A peak passed on the command line: '' (not measured) is None."""
    return float(text) if text else None


def field(path, key):
    value = load(path).get(key)
    print("" if value is None else value)


def isa_gflops(path, isa):
    match = [f for f in load(path).get("fma", []) if f.get("isa") == isa]
    print(match[0]["gflops"] if match else "")


def peak(threads, path):
    j = load(path)
    for i, f in enumerate(j["fma"]):
        # sgemm is one row per shape, printed beside the first FMA ISA only.
        sgemm = " | ".join(
            "" if i > 0 else
            f"{fmt(g.get('gflops'))} ({fmt(scaled(g.get('fraction_of_peak'), 100), 0)}%), wall {fmt(g.get('gflops_wall'))}"
            for g in j["sgemm"])
        print(f"| {threads} | {f['isa']} | {fmt(f.get('gflops'))} (wall {fmt(f.get('gflops_wall'))}) | "
              f"{fmt(f.get('gflops_per_core'))} | {sgemm} | {fmt(j.get('load_average'), 2)} |")


def items_per_s(row):
    return row["batch"] * 1000 / row["p50_ms"]


def threads(*paths):
    ratios = []
    for i, path in enumerate(paths):
        one, two = load(path)["results"]
        x, y = items_per_s(one), items_per_s(two)
        ratios.append(y / x)
        print(f"| {i + 1} | {fmt(x)} | {fmt(y)} | {fmt(y / x, 2)} |")
    m = median(ratios)
    print(f"| median | | | **{fmt(m, 2)}** ({verdict(m >= 1.7)}) |")


def batch32(peak2, path):
    r = load(path)["results"][0]
    peak2 = peak_arg(peak2)
    pct = scaled(ratio(r.get("gflops_per_s"), peak2), 100)
    print(f"| {r['runs']} | {fmt(r['p50_ms'])} | {fmt(r.get('items_per_s'))} | "
          f"{fmt(scaled(r.get('flops_per_run'), 1e-9), 2)} | {fmt(r.get('gflops_per_s'))} | {fmt(peak2)} | "
          f"**{fmt(pct)}%** ({verdict(pct is not None and pct >= 35)}) |")


def matmul(path, peak1, peak2):
    peaks = {1: peak_arg(peak1), 2: peak_arg(peak2)}
    for r in load(path)["results"]:
        peak = peaks[1] if r["threads"] == 1 else peaks[2]
        pct = scaled(ratio(r.get("gflops_per_s"), peak), 100)
        print(f"| {r['threads']} | {r['runs']} | {fmt(r['p50_ms'], 3)} | {fmt(r.get('gflops_per_s'))} | "
              f"{fmt(peak)} | **{fmt(pct)}%** ({verdict(pct is not None and pct >= 75)}) |")


def cold(model, *paths):
    js = [load(p) for p in paths]
    weights = js[0]["weight_bytes"] / MiB
    rss = median([j["process_peak_rss_bytes"] for j in js]) / MiB
    limit = 2 * weights + 64
    total = median([j["cold"]["total_ms"] for j in js])
    # The cold-start target is nsfw_mobilenet_v2's only.
    name = f"{model} ({verdict(total < 300)})" if model == "nsfw_mobilenet_v2" else model
    print(f"| {name} | {fmt(median([j['cold']['load_ms'] for j in js]))} | "
          f"{fmt(median([j['cold']['first_run_ms'] for j in js]))} | **{fmt(total)}** | {fmt(weights)} | "
          f"{fmt(rss)} | {fmt(limit)} | {verdict(rss < limit)} |")


def bf16(*paths):
    # Batch 32: items/s = 32 * 1000 / p50_ms.
    per_s = [32000 / load(p)["results"][0]["p50_ms"] for p in paths]
    fp32, bf16_ = median(per_s[0::2]), median(per_s[1::2])
    r = bf16_ / fp32
    print("| fp32 items/s | bf16 items/s | bf16/fp32 |")
    print("|---:|---:|---:|")
    print(f"| {fmt(fp32)} | {fmt(bf16_)} | **{fmt(r, 2)}** ({verdict(r >= 1.5)}) |")


COMMANDS = {f.__name__: f for f in (field, isa_gflops, peak, threads, batch32, matmul, cold, bf16)}

if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    COMMANDS[sys.argv[1]](*sys.argv[2:])
