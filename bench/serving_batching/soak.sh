#!/usr/bin/env bash
# Soak test for the gRPC + dynamic batching path: many short load rounds
# against one `tfhost serve` (restarted with SIGTERM every RESTART_EVERY
# rounds), looking for the two failures seen once on 2026-12-01 (commit
# 40e932e): calls that never complete, and a stop that never finishes.
# Either one is caught while it is happening and every thread's stack is
# saved with gdb, next to the server's log, under OUT. It is a diagnostic,
# not a benchmark: run it beside other load (the failure was seen on a busy
# machine).
#
#   bench/serving_batching/soak.sh [TFHOST_BINARY [SERVING_GRPC_LOAD]]
#   env: ROUNDS (200), ROUND_S (4 s of load per round), RESTART_EVERY (6),
#        STREAMS (32 one-image calls in flight), OUT (soak-out/), MODEL
#        (nsfw_mobilenet_v2 from TFHOST_FIXTURES)
# A stall: calls still open 6 s after their round ended (a round's calls
# normally finish within one batch time). A stop hang: the server still alive
# 20 s after SIGTERM (the drain deadline is 10 s).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
LOAD="${2:-${GRPC_LOAD:-$(dirname "$TFHOST")/serving_grpc_load}}"
ROUNDS="${ROUNDS:-200}"
ROUND_S="${ROUND_S:-4}"
RESTART_EVERY="${RESTART_EVERY:-6}"
STREAMS="${STREAMS:-32}"
OUT="${OUT:-$PWD/soak-out}"
FIXTURES="${TFHOST_FIXTURES:-$ROOT/../shared/fixtures}"
MODEL="${MODEL:-$FIXTURES/models/tfjs/nsfw_mobilenet_v2}"

[ -x "$TFHOST" ] || { echo "soak: tfhost binary not found at $TFHOST" >&2; exit 1; }
[ -x "$LOAD" ] || { echo "soak: serving_grpc_load not found at $LOAD" >&2; exit 1; }
[ -d "$MODEL" ] || { echo "soak: model $MODEL not found" >&2; exit 1; }
command -v gdb >/dev/null || { echo "soak: gdb is needed to record stacks" >&2; exit 1; }

mkdir -p "$OUT"
WORK="$(mktemp -d /tmp/tfhost_soak.XXXXXX)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill -9 "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/models/nsfw"
ln -s "$MODEL" "$WORK/models/nsfw/1"
cat > "$WORK/batching.config" <<CONF
max_batch_size { value: 8 }
batch_timeout_micros { value: 20000 }
max_enqueued_batches { value: 1000 }
num_batch_threads { value: 1 }
CONF

start_server() {
  PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$TFHOST" serve --model_name=nsfw --model_base_path="$WORK/models/nsfw" --port="$PORT" --rest_api_port=0 \
    --batching_parameters_file="$WORK/batching.config" --file_system_poll_wait_seconds=0 >"$WORK/serve.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 600); do
    grep -q "gRPC API listening" "$WORK/serve.log" && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "soak: the server did not start:" >&2
  cat "$WORK/serve.log" >&2
  exit 1
}
record() {  # NAME: every thread's stack and the server log
  gdb -p "$SERVER_PID" -batch -ex "info threads" -ex "thread apply all bt" >"$OUT/$1.stacks.txt" 2>&1
  cp "$WORK/serve.log" "$OUT/$1.serve.log"
  echo "  stacks in $OUT/$1.stacks.txt"
}
stop_server() {
  kill -TERM "$SERVER_PID"
  for _ in $(seq 1 200); do
    kill -0 "$SERVER_PID" 2>/dev/null || { wait "$SERVER_PID"; return 0; }
    sleep 0.1
  done
  echo "$(date -u +%T) STOP HANG: server $SERVER_PID alive 20 s after SIGTERM"
  record "stop-hang-$1"
  kill -9 "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null
}

stalls=0
start_server
for round in $(seq 1 "$ROUNDS"); do
  "$LOAD" --target="127.0.0.1:$PORT" --model=nsfw --input=input:0 --row_shape=224,224,3 \
    --streams="$STREAMS" --duration_s="$ROUND_S" --warmup_s=0.5 >"$WORK/load.out" 2>"$WORK/load.err" &
  load_pid=$!
  for _ in $(seq 1 $(((ROUND_S + 6) * 10))); do
    kill -0 "$load_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$load_pid" 2>/dev/null; then
    echo "$(date -u +%T) STALL in round $round: calls still open 6 s after the round"
    record "stall-$round"
    stalls=$((stalls + 1))
  fi
  wait "$load_pid"
  echo "$(date -u +%T) round $round: $(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["requests"], "calls,", d["errors"], "errors")' <"$WORK/load.out" 2>/dev/null || echo "no result") (load $(cut -d' ' -f1 /proc/loadavg))"
  if [ $((round % RESTART_EVERY)) -eq 0 ] && [ "$round" -lt "$ROUNDS" ]; then
    stop_server "$round"
    start_server
  fi
done
stop_server "$ROUNDS"
SERVER_PID=""
echo "soak: $ROUNDS rounds, $stalls stalls, $(ls "$OUT"/stop-hang-*.stacks.txt 2>/dev/null | wc -l) stop hangs"
