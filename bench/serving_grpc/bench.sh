#!/usr/bin/env bash
# gRPC Predict throughput and latency of `tfhost serve` (issue 5, item 10):
# serving_grpc_load keeps STREAMS calls in flight on one HTTP/2 connection
# for DURATION seconds against TF Serving's half_plus_two model and reports
# req/s and p50/p90/p99; ROUNDS runs, each a JSON line.
#
#   bench/serving_grpc/bench.sh [TFHOST_BINARY [SERVING_GRPC_LOAD_BINARY]]
#   env: DURATION (30), STREAMS (64), ROUNDS (3), WARMUP (2), BATCH (1),
#        MODEL (half_plus_two base path), SERVE_FLAGS (extra tfhost serve flags)
# Build: cmake --build <build> --target tfhost serving_grpc_load
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
LOAD="${2:-${GRPC_LOAD:-$(dirname "$TFHOST")/serving_grpc_load}}"
DURATION="${DURATION:-30}"
STREAMS="${STREAMS:-64}"
ROUNDS="${ROUNDS:-3}"
WARMUP="${WARMUP:-2}"
BATCH="${BATCH:-1}"
FIXTURES="${TFHOST_FIXTURES:-$ROOT/../shared/fixtures}"
MODEL="${MODEL:-$FIXTURES/models/tfserving/saved_model_half_plus_two_cpu}"

[ -x "$TFHOST" ] || { echo "bench: tfhost binary not found at $TFHOST" >&2; exit 1; }
[ -x "$LOAD" ] || { echo "bench: serving_grpc_load not found at $LOAD" >&2; exit 1; }
[ -d "$MODEL" ] || { echo "bench: model $MODEL not found" >&2; exit 1; }

WORK="$(mktemp -d /tmp/tfhost_grpc_bench.XXXXXX)"
TFHOST_PID=""
cleanup() {
  [ -n "$TFHOST_PID" ] && kill "$TFHOST_PID" 2>/dev/null && wait "$TFHOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
# shellcheck disable=SC2086
"$TFHOST" serve --model_name=half_plus_two --model_base_path="$MODEL" --port="$PORT" --rest_api_port=0 \
  ${SERVE_FLAGS:-} >"$WORK/tfhost.log" 2>&1 &
TFHOST_PID=$!
for _ in $(seq 1 300); do
  grep -q "gRPC API listening" "$WORK/tfhost.log" && break
  kill -0 "$TFHOST_PID" 2>/dev/null || { cat "$WORK/tfhost.log" >&2; exit 1; }
  sleep 0.1
done
# A short check run: every call must succeed before anything is measured.
"$LOAD" --target="127.0.0.1:$PORT" --streams=4 --duration_s=1 --warmup_s=0 --batch="$BATCH" >/dev/null ||
  { echo "bench: check run failed" >&2; cat "$WORK/tfhost.log" >&2; exit 1; }

echo "# tfhost serve gRPC Predict, half_plus_two, $STREAMS streams, ${DURATION}s x $ROUNDS, $(nproc) CPUs"
for round in $(seq 1 "$ROUNDS"); do
  "$LOAD" --target="127.0.0.1:$PORT" --streams="$STREAMS" --duration_s="$DURATION" --warmup_s="$WARMUP" \
    --batch="$BATCH"
done
