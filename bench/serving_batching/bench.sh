#!/usr/bin/env bash
# Dynamic batching throughput at saturation vs `tfhost bench` at the same
# batch size, in the same run (issue 5, item 10): nsfw_mobilenet_v2 (the TF.js
# fixture, input [-1,224,224,3]) served by `tfhost serve` with batching, loaded
# over gRPC by serving_grpc_load (one-image requests, STREAMS in flight, so
# the queue always holds a full batch), against `tfhost bench --batch BATCH`
# on the same model with the same intra-op threads. Rounds alternate server
# and bench so that noise from a shared machine hits both.
#
#   bench/serving_batching/bench.sh [TFHOST_BINARY [SERVING_GRPC_LOAD]]
#   env: BATCH (8), THREADS (intra-op threads on both sides; default nproc),
#        DURATION (20 s per server round), RUNS (bench runs per round, 30),
#        ROUNDS (3), STREAMS (4 x BATCH), TIMEOUT_US (batch_timeout_micros, 20000),
#        MODEL (the model folder)
# Build: cmake --build <build> --target tfhost serving_grpc_load
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
LOAD="${2:-${GRPC_LOAD:-$(dirname "$TFHOST")/serving_grpc_load}}"
BATCH="${BATCH:-8}"
THREADS="${THREADS:-$(nproc)}"
DURATION="${DURATION:-20}"
RUNS="${RUNS:-30}"
ROUNDS="${ROUNDS:-3}"
STREAMS="${STREAMS:-$((4 * BATCH))}"
TIMEOUT_US="${TIMEOUT_US:-20000}"
FIXTURES="${TFHOST_FIXTURES:-$ROOT/../shared/fixtures}"
MODEL="${MODEL:-$FIXTURES/models/tfjs/nsfw_mobilenet_v2}"
INPUT="${INPUT:-input:0}"  # the signature input (TF.js models: tensor names)

[ -x "$TFHOST" ] || { echo "bench: tfhost binary not found at $TFHOST" >&2; exit 1; }
[ -x "$LOAD" ] || { echo "bench: serving_grpc_load not found at $LOAD" >&2; exit 1; }
[ -d "$MODEL" ] || { echo "bench: model $MODEL not found" >&2; exit 1; }

WORK="$(mktemp -d /tmp/tfhost_batching_bench.XXXXXX)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT="$(free_port)"
mkdir -p "$WORK/models/nsfw"
ln -s "$MODEL" "$WORK/models/nsfw/1"  # TF Serving layout: a numeric version folder
cat > "$WORK/batching.config" <<CONF
max_batch_size { value: $BATCH }
batch_timeout_micros { value: $TIMEOUT_US }
max_enqueued_batches { value: 1000 }
num_batch_threads { value: 1 }
CONF

"$TFHOST" serve --model_name=nsfw --model_base_path="$WORK/models/nsfw" --port="$PORT" --rest_api_port=0 \
  --batching_parameters_file="$WORK/batching.config" --tensorflow_intra_op_parallelism="$THREADS" \
  --file_system_poll_wait_seconds=0 >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 600); do
  grep -q "gRPC API listening" "$WORK/serve.log" && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.1
done

server_round() {  # -> "images_per_s p50_ms p99_ms errors"
  local out
  out="$("$LOAD" --target="127.0.0.1:$PORT" --model=nsfw --input="$INPUT" --row_shape=224,224,3 \
         --streams="$STREAMS" --duration_s="$DURATION" --warmup_s=3 2>"$WORK/load.err")" || true
  if ! grep -q '"requests": [1-9]' <<<"$out"; then  # an empty round: keep the evidence
    { echo "bench: a round finished no call; load generator said:"; echo "$out"; cat "$WORK/load.err"
      kill -0 "$SERVER_PID" 2>/dev/null && echo "server alive" || echo "server exited"
      echo "last server log lines:"; tail -n 20 "$WORK/serve.log"; } >&2
  fi
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print("%.1f %.1f %.1f %d" % (d["req_per_s"], d["p50_ms"], d["p99_ms"], d["errors"]))' "$out"
}
bench_round() {  # -> "images_per_s p50_ms"
  "$TFHOST" bench "$MODEL" --batch "$BATCH" --threads "$THREADS" --runs "$RUNS" --warmup 3 --json 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
r = [x for v in d.values() if isinstance(v, list) for x in v if isinstance(x, dict) and "items_per_s" in x][0]
print("%.1f %.1f" % (r["items_per_s"], r["p50_ms"]))'
}

echo "# tfhost serve dynamic batching vs tfhost bench, nsfw_mobilenet_v2 ($(date -u +%FT%TZ))"
echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "batch $BATCH, intra-op threads $THREADS, batch_timeout_micros $TIMEOUT_US, 1 batch thread, $STREAMS gRPC streams of 1 image, ${DURATION}s per server round, $RUNS bench runs"
echo
echo "| round | serve images/s | p50 ms | p99 ms | errors | bench images/s | bench p50 ms/batch | ratio | load avg |"
echo "|---|---|---|---|---|---|---|---|---|"
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  read -r s_ips s_p50 s_p99 s_err < <(server_round)
  read -r b_ips b_p50 < <(bench_round)
  ratio="$(python3 -c "print('%.2f' % ($s_ips / $b_ips))")"
  ratios+=("$ratio")
  echo "| $round | $s_ips | $s_p50 | $s_p99 | $s_err | $b_ips | $b_p50 | $ratio | $(cut -d' ' -f1 /proc/loadavg) |"
done
median="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
echo
echo "median serve/bench ratio: $median (target >= 0.80)"
grep -m1 "dynamic batching on" "$WORK/serve.log" || true
