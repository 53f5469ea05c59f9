"""Compares two folders of .npy outputs (as `tfhost run --output-dir` writes
them) file by file and prints one markdown row per output: the max relative
error max|b - a| / max|a| (relative to the output's largest magnitude, as the
fixtures' README measures agreement), and against LIMIT, whether it is met.

  scripts/py bench/fast_cpu/compare_npy.py LABEL DIR_A DIR_B [LIMIT]
"""
import decimal
import math
import pathlib
import sys

import numpy as np


def read_floats(path):
    a = np.load(path, allow_pickle=False)
    if not np.issubdtype(a.dtype, np.floating):
        sys.exit(f"compare_npy.py: {path}: dtype {a.dtype}; only float outputs are compared")
    return a.astype(np.float64).ravel()


def exponential(x):
    """x with 3 significant digits, ties away from zero and an unpadded
    exponent (1.18e-2), as JavaScript's toExponential(2) wrote the error
    columns docs/perf.md already holds."""
    if not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0.00e+0"  # Decimal would print 0.00e+2
    with decimal.localcontext() as context:
        context.rounding = decimal.ROUND_HALF_UP
        mantissa, exponent = f"{decimal.Decimal(x):.2e}".split("e")
    return f"{mantissa}e{int(exponent):+d}"


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    label, dir_a, dir_b = argv[0], pathlib.Path(argv[1]), pathlib.Path(argv[2])
    limit = float(argv[3]) if len(argv) == 4 else None
    names = sorted(p.name for p in dir_a.glob("*.npy"))
    if not names:
        sys.exit(f"compare_npy.py: no .npy files in {dir_a}")
    for name in names:
        a = read_floats(dir_a / name)
        b = read_floats(dir_b / name)
        if a.size != b.size:
            sys.exit(f"compare_npy.py: {name}: {a.size} vs {b.size} elements")
        max_abs = float(np.max(np.abs(a), initial=0.0))
        max_diff = float(np.max(np.abs(b - a), initial=0.0))
        rel = max_diff / max_abs if max_abs > 0 else max_diff
        verdict = "" if limit is None else ("met" if rel <= limit else "not met")
        print(f"| {label} | {name.removesuffix('.npy')} | {exponential(rel)} | {verdict} |")


if __name__ == "__main__":
    main(sys.argv[1:])
