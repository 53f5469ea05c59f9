#!/usr/bin/env bash
# Two tfhost builds on one model, alternating: A, B, A, B, ... `tfhost bench`
# p50 per round, then the medians and the median of the per-pair ratios.
# On a noisy machine only pairs measured back to back compare; this is how
# docs/perf.md's end-to-end A/B figures (from 2026-12-04 on) were taken.
#
#   bench/tfhost_ab/run.sh TFHOST_A TFHOST_B MODEL ROUNDS [tfhost bench flags...]
#   e.g. bench/tfhost_ab/run.sh /tmp/base/build/tfhost build/tfhost \
#          ../shared/fixtures/models/tfjs/blazeface 8 --runs 20 --warmup 5
# The flags must select one row (one --batch and one --threads).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,11p' "$0" >&2; exit 2; }
a="$1" b="$2" model="$3" rounds="$4"
shift 4
for bin in "$a" "$b"; do [[ -x "$bin" ]] || { echo "run.sh: no tfhost at $bin" >&2; exit 2; }; done
p50() { "$1" bench "$model" --json "${@:2}" | python3 -c '
import json, sys
rows = json.load(sys.stdin)["results"]
if len(rows) != 1:
    print(f"run.sh: flags select {len(rows)} rows, want 1", file=sys.stderr)
    sys.exit(2)
print(rows[0]["p50_ms"])'; }
echo "# $(date -u '+%F %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg); A = $a, B = $b"
echo "# $model $*"
pairs=()
for ((r = 1; r <= rounds; ++r)); do
  pa="$(p50 "$a" "$@")"
  pb="$(p50 "$b" "$@")"
  echo "round $r: A $pa ms, B $pb ms"
  pairs+=("$pa $pb")
done
printf '%s\n' "${pairs[@]}" | python3 -c '
import sys
from statistics import median
p = [[float(x) for x in line.split()] for line in sys.stdin if line.strip()]
ma, mb = median(a for a, _ in p), median(b for _, b in p)
print(f"median A {ma:.3f} ms, B {mb:.3f} ms; A/B of medians {ma / mb:.3f}; "
      f"median of pair ratios {median(a / b for a, b in p):.3f} (above 1: B is faster)")'
