#!/usr/bin/env bash
# REST predict throughput of `tfhost serve` against nginx serving a static
# file of the same response size, measured in the same run with wrk
# (issue 5, item 10). Rounds alternate tfhost and nginx so that noise from a
# shared machine hits both sides.
#
#   bench/serving_rest/bench.sh [TFHOST_BINARY]
#   env: DURATION (30s), CONNECTIONS (64), WRK_THREADS (2), ROUNDS (3),
#        REST_THREADS (tfhost --rest_api_num_threads; default 2 x CPUs),
#        NGINX_WORKERS (default: CPUs), MODEL (half_plus_two base path)
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
DURATION="${DURATION:-30s}"
CONNECTIONS="${CONNECTIONS:-64}"
WRK_THREADS="${WRK_THREADS:-2}"
ROUNDS="${ROUNDS:-3}"
CPUS="$(nproc)"
REST_THREADS="${REST_THREADS:-$((2 * CPUS))}"
NGINX_WORKERS="${NGINX_WORKERS:-$CPUS}"
FIXTURES="${TFHOST_FIXTURES:-$ROOT/../shared/fixtures}"
MODEL="${MODEL:-$FIXTURES/models/tfserving/saved_model_half_plus_two_cpu}"

for tool in wrk nginx curl python3; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found (scripts/install_deps.sh installs it)" >&2; exit 1; }
done
[ -x "$TFHOST" ] || { echo "bench: tfhost binary not found at $TFHOST" >&2; exit 1; }
[ -d "$MODEL" ] || { echo "bench: model $MODEL not found" >&2; exit 1; }

WORK="$(mktemp -d /tmp/tfhost_rest_bench.XXXXXX)"
chmod 755 "$WORK"  # nginx workers may run as another user
TFHOST_PID=""; NGINX_STARTED=""
cleanup() {
  [ -n "$TFHOST_PID" ] && kill "$TFHOST_PID" 2>/dev/null && wait "$TFHOST_PID" 2>/dev/null || true
  [ -n "$NGINX_STARTED" ] && nginx -p "$WORK" -c "$WORK/nginx.conf" -s stop 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
TF_PORT="$(free_port)"; NGINX_PORT="$(free_port)"

BODY='{"instances": [[1.0]]}'
cat > "$WORK/post.lua" <<LUA
wrk.method = "POST"
wrk.body   = '$BODY'
wrk.headers["Content-Type"] = "application/json"
LUA

"$TFHOST" serve --model_name=half_plus_two --model_base_path="$MODEL" --rest_api_address=127.0.0.1 \
  --rest_api_port="$TF_PORT" --port=0 --rest_api_num_threads="$REST_THREADS" >"$WORK/tfhost.log" 2>&1 &
TFHOST_PID=$!
for _ in $(seq 1 300); do
  curl -sf "http://127.0.0.1:$TF_PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
RESPONSE="$(curl -sf -d "$BODY" "http://127.0.0.1:$TF_PORT/v1/models/half_plus_two:predict")"
[ "$RESPONSE" = '{"predictions": [[2.5]]}' ] || { echo "bench: unexpected answer: $RESPONSE" >&2; cat "$WORK/tfhost.log" >&2; exit 1; }

# nginx: the same bytes as a static file, keep-alive without a request cap.
mkdir -p "$WORK/html" "$WORK/logs"
printf "%s" "$RESPONSE" > "$WORK/html/predict.json"
chmod -R a+rX "$WORK/html"
cat > "$WORK/nginx.conf" <<CONF
worker_processes $NGINX_WORKERS;
error_log $WORK/logs/error.log;
pid $WORK/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  default_type application/json;
  # nginx at its best for a static file: no open()/fstat per request.
  open_file_cache max=16 inactive=600s;
  open_file_cache_valid 600s;
  sendfile on;
  server { listen 127.0.0.1:$NGINX_PORT; root $WORK/html; }
}
CONF
nginx -p "$WORK" -c "$WORK/nginx.conf"
NGINX_STARTED=1
sleep 0.3
[ "$(curl -sf "http://127.0.0.1:$NGINX_PORT/predict.json")" = "$RESPONSE" ] || { echo "bench: nginx not serving" >&2; exit 1; }

# wrk summary -> "req_per_s p50_ms p99_ms errors"
run_wrk() {
  local out
  out="$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@")"
  echo "$out" >> "$WORK/wrk.txt"
  python3 - "$out" <<'PY'
import re, sys
t = sys.argv[1]
def ms(v):
    m = re.match(r"([\d.]+)(us|ms|s|m|h)$", v)
    if not m:
        sys.exit(f"bench: cannot read wrk latency '{v}' in:\n{t}")
    return float(m.group(1)) * {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}[m.group(2)]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
# The latency distribution lines ("     50%    1.23ms"), not the stdev columns.
p50 = ms(re.search(r"^\s+50%\s+(\S+)", t, re.M).group(1))
p99 = ms(re.search(r"^\s+99%\s+(\S+)", t, re.M).group(1))
errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", t))
m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
errors += int(m.group(1)) if m else 0
print(f"{rps:.0f} {p50:.3f} {p99:.3f} {errors}")
PY
}

echo "# tfhost REST predict vs nginx static file ($(date -u +%FT%TZ))"
echo "machine: $CPUS CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION; tfhost --rest_api_num_threads=$REST_THREADS; nginx worker_processes $NGINX_WORKERS"
echo "response: $RESPONSE (${#RESPONSE} bytes)"
echo
echo "| round | tfhost req/s | p50 ms | p99 ms | errors | nginx req/s | p50 ms | p99 ms | errors | ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|"
ratios=()
for round in $(seq 1 "$ROUNDS"); do
  read -r t_rps t_p50 t_p99 t_err < <(run_wrk -s "$WORK/post.lua" "http://127.0.0.1:$TF_PORT/v1/models/half_plus_two:predict")
  read -r n_rps n_p50 n_p99 n_err < <(run_wrk "http://127.0.0.1:$NGINX_PORT/predict.json")
  ratio="$(python3 -c "print(f'{$t_rps / $n_rps:.2f}')")"
  ratios+=("$ratio")
  echo "| $round | $t_rps | $t_p50 | $t_p99 | $t_err | $n_rps | $n_p50 | $n_p99 | $n_err | $ratio |"
done
echo
echo "median ratio tfhost/nginx: $(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') (target >= 0.50)"
