#!/usr/bin/env bash
# Measures `tfhost predict` as recorded in docs/perf.md ("Batch prediction"):
# records/s and the share of time the engine ran batches versus waited for
# input, on the demo CNN (x: float32 [?,8,8,1], 64 float features per record)
# with two model threads, and on half_plus_two's regress signature over
# serialized Examples.
#
# Usage: bench/predict/run.sh [TFHOST_BINARY] [RECORDS]
#   RECORDS (default 200000) Examples are written in 8 uncompressed TFRecord
#   shards in a temporary folder; each configuration runs REPEAT (default 3)
#   times and every run's JSON summary is printed.
set -euo pipefail
TFHOST=${1:-build/tfhost}
RECORDS=${2:-200000}
REPEAT=${REPEAT:-3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$TFHOST" demo-models "$WORK/models" > /dev/null
# 64 pixel values per record in [0, 1), deterministic.
awk -v n="$RECORDS" 'BEGIN {
  for (r = 0; r < n; ++r) {
    printf "{\"x\": ["
    for (i = 0; i < 64; ++i) printf "%s%.4f", (i ? "," : ""), ((r * 31 + i * 17) % 97) / 97.0
    printf "]}\n"
  }
}' > "$WORK/cnn.jsonl"
"$TFHOST" data convert "$WORK/cnn.jsonl" --out "$WORK/cnn" --shards 8 --compression none --quiet
awk -v n="$RECORDS" 'BEGIN { for (r = 0; r < n; ++r) printf "{\"x\": %d.0}\n", r }' > "$WORK/hp2.jsonl"
"$TFHOST" data convert "$WORK/hp2.jsonl" --out "$WORK/hp2" --shards 8 --compression none --quiet
rm "$WORK"/*.jsonl
nproc | sed 's/^/cpus: /'

run() {
  local label=$1; shift
  for i in $(seq "$REPEAT"); do
    rm -rf "$WORK/out"
    echo "== $label (run $i)"
    "$TFHOST" predict "$@" --output "$WORK/out/p" --no-sync --json
  done
}
run "cnn, --threads 2 --batch 64" "$WORK/models/cnn" --input "$WORK"/cnn-* --threads 2 --batch 64
run "cnn, --threads 2 --batch 256" "$WORK/models/cnn" --input "$WORK"/cnn-* --threads 2 --batch 256
run "half_plus_two regress_x_to_y, --threads 1 --batch 256" "$WORK/models/half_plus_two" \
    --input "$WORK"/hp2-* --signature regress_x_to_y --threads 1 --batch 256
