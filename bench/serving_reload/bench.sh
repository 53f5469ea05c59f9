#!/usr/bin/env bash
# p99 latency of REST requests to model A while model B gets a new version
# again and again, against the same load with B left alone, in the same run
# (target: A's p99 while B reloads stays within 1.5x). API=v1 sends TF
# Serving predict requests, API=v2 Open Inference Protocol infer requests
# (JSON tensors). A is the half_plus_two fixture, B nsfw_mobilenet_v2 (a
# 14 MB TF.js model, so each reload is real work: read, decode, build, warm
# up). A reload = a new numeric version folder under B's base path; the
# file-system poll (1 s) loads it and unloads the old one. Rounds alternate
# quiet and reloading.
#
#   bench/serving_reload/bench.sh [TFHOST_BINARY]
#   env: API (v1 or v2), DURATION (20s), CONNECTIONS (16), WRK_THREADS (2),
#        ROUNDS (3), RELOAD_EVERY (seconds between new B versions, 2)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
DURATION="${DURATION:-20s}"
CONNECTIONS="${CONNECTIONS:-16}"
WRK_THREADS="${WRK_THREADS:-2}"
ROUNDS="${ROUNDS:-3}"
RELOAD_EVERY="${RELOAD_EVERY:-2}"
API="${API:-v1}"
FIXTURES="${TFHOST_FIXTURES:-$ROOT/../shared/fixtures}"
MODEL_A="${MODEL_A:-$FIXTURES/models/tfserving/saved_model_half_plus_two_cpu}"
MODEL_B="${MODEL_B:-$FIXTURES/models/tfjs/nsfw_mobilenet_v2}"

for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 1; }
done
[ -x "$TFHOST" ] || { echo "bench: tfhost binary not found at $TFHOST" >&2; exit 1; }

WORK="$(mktemp -d /tmp/tfhost_reload_bench.XXXXXX)"
SERVER_PID=""; RELOADER_PID=""
cleanup() {
  [ -n "$RELOADER_PID" ] && kill "$RELOADER_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT="$(free_port)"
mkdir -p "$WORK/b"
ln -s "$MODEL_B" "$WORK/b/1"
cat > "$WORK/models.config" <<CONF
model_config_list {
  config { name: "a" base_path: "$MODEL_A" model_platform: "tensorflow" }
  config { name: "b" base_path: "$WORK/b" model_platform: "tensorflow" }
}
CONF
case "$API" in
  v1) BODY='{"instances": [[1.0]]}'; URL_PATH=/v1/models/a:predict; ANSWER='{"predictions": [[2.5]]}' ;;
  v2) BODY='{"inputs": [{"name": "x", "shape": [1, 1], "datatype": "FP32", "data": [1.0]}]}'
      URL_PATH=/v2/models/a/infer
      ANSWER='{"model_name": "a", "model_version": "123", "outputs": [{"name": "y", "datatype": "FP32", "shape": [1,1], "data": [2.5]}]}' ;;
  *) echo "bench: API must be v1 or v2" >&2; exit 1 ;;
esac
cat > "$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.body   = '$BODY'
wrk.headers["Content-Type"] = "application/json"
LUA

"$TFHOST" serve --model_config_file="$WORK/models.config" --rest_api_address=127.0.0.1 --rest_api_port="$PORT" \
  --port=0 --file_system_poll_wait_seconds=1 >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 600); do
  curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
  sleep 0.1
done
got="$(curl -sf -d "$BODY" "http://127.0.0.1:$PORT$URL_PATH")"
[ "$got" = "$ANSWER" ] || { echo "bench: model a answers '$got'" >&2; exit 1; }

# Every RELOAD_EVERY seconds: version N+1 appears, version N goes.
reloader() {
  local v
  v="$(ls "$WORK/b" | sort -n | tail -1)"
  while true; do
    sleep "$RELOAD_EVERY"
    ln -s "$MODEL_B" "$WORK/b/$((v + 1))"
    rm -f "$WORK/b/$v"
    v=$((v + 1))
  done
}

run_wrk() {  # -> "req_per_s p50_ms p99_ms errors"
  local out
  out="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$WORK/post.lua" \
         "http://127.0.0.1:$PORT$URL_PATH")"
  python3 - "$out" <<'PY'
import re, sys
t = sys.argv[1]
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s|m|h)$", v)
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}[m.group(2)]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
p50 = ms(re.search(r"^\s+50%\s+(\S+)", t, re.M).group(1))
p99 = ms(re.search(r"^\s+99%\s+(\S+)", t, re.M).group(1))
errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", t))
m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
errors += int(m.group(1)) if m else 0
print(f"{rps:.0f} {p50:.3f} {p99:.3f} {errors}")
PY
}
b_loads() { grep -c '"model":"b".*"state":"AVAILABLE"' "$WORK/serve.log" || true; }

echo "# p99 of model A over HTTP ($API: POST $URL_PATH) while model B gets new versions ($(date -u +%FT%TZ))"
echo "machine: $(nproc) CPUs; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION on a (half_plus_two); b = nsfw_mobilenet_v2, a new version every ${RELOAD_EVERY}s during reload rounds"
echo
echo "| round | quiet req/s | p50 ms | p99 ms | errors | reloading req/s | p50 ms | p99 ms | errors | b versions loaded | p99 ratio | load avg |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  read -r q_rps q_p50 q_p99 q_err < <(run_wrk)
  before="$(b_loads)"
  reloader & RELOADER_PID=$!
  read -r r_rps r_p50 r_p99 r_err < <(run_wrk)
  kill "$RELOADER_PID" 2>/dev/null; wait "$RELOADER_PID" 2>/dev/null || true; RELOADER_PID=""
  loaded=$(( $(b_loads) - before ))
  ratio="$(python3 -c "print('%.2f' % ($r_p99 / $q_p99))")"
  ratios+=("$ratio")
  echo "| $round | $q_rps | $q_p50 | $q_p99 | $q_err | $r_rps | $r_p50 | $r_p99 | $r_err | $loaded | $ratio | $(cut -d' ' -f1 /proc/loadavg) |"
  sleep 3  # let the last reload settle before the next quiet round
done
median="$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
echo
echo "median p99 ratio (reloading / quiet): $median (target <= 1.5)"
