#!/usr/bin/env bash
# Measures tfhost's TFRecord read+verify against the raw read bandwidth of the
# same files, and the fast Example decoder against libprotobuf's parse, as
# recorded in docs/perf.md ("Data: TFRecord read+verify and the Example
# decoder").
#
# Usage: bench/data/run.sh [TFHOST_BINARY] [COPIES]
#   Builds an uncompressed data set from the fixture Examples (24,909 records,
#   replicated COPIES times, default 20, ~260 MB in 4 shards) in a temporary
#   folder, then runs `tfhost data bench` with 1 and 2 threads. The fixture
#   gzip shards themselves are measured too. Each table has wall-time and
#   CPU-time columns (CPU of the whole process, read-ahead helpers included);
#   rounds alternate the modes. read+verify (read-ahead) is compared in wall
#   time at the same --threads (plus one helper per thread) and needs a free
#   core to gain; on a loaded machine quote the CPU-time ratios.
set -euo pipefail
TFHOST=${1:-build/tfhost}
COPIES=${2:-20}
FIXTURES=${TFHOST_FIXTURES:-$(dirname "$0")/../../../shared/fixtures}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

TAXI="$FIXTURES/data/tfx_chicago_taxi"
"$TFHOST" data convert "$TAXI"/Split-train/*.gz "$TAXI"/external_tfrecord/*.gz --out "$WORK/one.jsonl" --quiet
for _ in $(seq "$COPIES"); do cat "$WORK/one.jsonl"; done > "$WORK/all.jsonl"
"$TFHOST" data convert "$WORK/all.jsonl" --out "$WORK/train" --shards 4 --compression none --quiet
rm "$WORK/one.jsonl" "$WORK/all.jsonl"

echo "== uncompressed, $COPIES copies of the fixture Examples, 1 thread"
"$TFHOST" data bench "$WORK"/train-* --threads 1 --repeat 5
echo "== uncompressed, 2 threads"
"$TFHOST" data bench "$WORK"/train-* --threads 2 --repeat 5
echo "== fixture gzip shards (Split-train), 1 thread"
"$TFHOST" data bench "$TAXI"/Split-train/*.gz --threads 1 --repeat 5
