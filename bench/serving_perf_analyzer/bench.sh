#!/usr/bin/env bash
# Load on `tfhost serve` from perf_analyzer, the load generator Triton and
# KServe operators use, over both protocols tfhost speaks on the same ports:
#   v1-grpc         TF Serving PredictionService/Predict (perf_analyzer --service-kind=tfserving -i grpc)
#   v1-rest-json    TF Serving REST :predict, {"instances": ...}: wrk with a fixed
#                   body (perf_analyzer's tfserving kind has no HTTP client)
#   v2-rest-json    Open Inference Protocol REST infer, JSON tensors
#                   (perf_analyzer --service-kind=triton -i http --input/output-tensor-format=json)
#   v2-rest-binary  the same with binary tensor data (perf_analyzer's default for http)
#   v2-grpc         GRPCInferenceService/ModelInfer (perf_analyzer --service-kind=triton -i grpc)
# It serves tfhost's demo models plus `image` (image_saved_model.pbtxt beside
# this script, a text SavedModel): x [-1,224,224,3] float32 (602,112 bytes
# per image) -> mean over H and W -> MatMul 3x4, so that the 600 KB input's
# transport and decoding, not compute, is what gets measured. Per model,
# concurrency, round and protocol it runs one measurement and prints a
# markdown row: throughput, p50 and p99, the server's CPU time per request
# (its utime + stime over the requests its metrics counted), errors; then
# the throughput ratios v2-rest-binary / v1-rest-json and v2-grpc / v1-grpc.
# The protocols of one model and concurrency run back to back, so that they
# share the machine's load.
#
#   bench/serving_perf_analyzer/bench.sh [TFHOST_BINARY]
#   env: MODELS ("half_plus_two:x:1 image:x:224,224,3" = name:input:shape of
#          one batch row; every protocol sends a batch of 1, shape [1,...]),
#        PROTOCOLS ("v1-grpc v1-rest-json v2-rest-json v2-rest-binary v2-grpc"),
#        CONCURRENCY ("1 4 16"), ROUNDS (1: the protocols of one model and
#          concurrency run in turn this many times; ratios are medians over
#          rounds), INTERVAL_MS (5000, per measurement window;
#          wrk runs 3 windows), STABILITY (50: % within which 3 windows must
#          agree; perf_analyzer's own default of 10 is rarely met on a shared
#          2-CPU machine), SERVE_FLAGS (extra tfhost serve flags)
# Fails (exit 1) when any request failed or a measurement did not finish.
# Needs scripts/perf_analyzer (requirements/loadgen.txt, made on first use),
# python3, and wrk for v1-rest-json.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
MODELS="${MODELS:-half_plus_two:x:1 image:x:224,224,3}"
PROTOCOLS="${PROTOCOLS:-v1-grpc v1-rest-json v2-rest-json v2-rest-binary v2-grpc}"
CONCURRENCY="${CONCURRENCY:-1 4 16}"
INTERVAL_MS="${INTERVAL_MS:-5000}"
STABILITY="${STABILITY:-50}"
ROUNDS="${ROUNDS:-1}"
PA="$ROOT/scripts/perf_analyzer"

[ -x "$TFHOST" ] || { echo "bench: tfhost binary not found at $TFHOST" >&2; exit 1; }
case " $PROTOCOLS " in *" v1-rest-json "*)
  command -v wrk >/dev/null || { echo "bench: wrk not found (scripts/install_deps.sh installs it; or leave v1-rest-json out of PROTOCOLS)" >&2; exit 1; }
esac
WORK="$(mktemp -d /tmp/tfhost_pa_bench.XXXXXX)"
TFHOST_PID=""
cleanup() {
  [ -n "$TFHOST_PID" ] && kill "$TFHOST_PID" 2>/dev/null && wait "$TFHOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

{ "$PA" --help 2>&1 || true; } | grep -q -- --service-kind || { echo "bench: scripts/perf_analyzer does not run (see its header)" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
GRPC_PORT="$(free_port)"; REST_PORT="$(free_port)"

# The demo models, and `image`: almost no compute behind a 602,112-byte input.
"$TFHOST" demo-models "$WORK/models" >/dev/null
mkdir -p "$WORK/models/image/1"
cp "$ROOT/bench/serving_perf_analyzer/image_saved_model.pbtxt" "$WORK/models/image/1/saved_model.pbtxt"
{
  echo "model_config_list {"
  for dir in "$WORK"/models/*/; do
    name="$(basename "$dir")"
    echo "  config { name: \"$name\" base_path: \"${dir%/}\" model_platform: \"tensorflow\" }"
  done
  echo "}"
} > "$WORK/models.config"

# shellcheck disable=SC2086
"$TFHOST" serve --model_config_file="$WORK/models.config" --port="$GRPC_PORT" --grpc_address=127.0.0.1 \
  --rest_api_port="$REST_PORT" --rest_api_address=127.0.0.1 ${SERVE_FLAGS:-} >"$WORK/tfhost.log" 2>&1 &
TFHOST_PID=$!
for _ in $(seq 300); do
  grep -q "gRPC API listening" "$WORK/tfhost.log" 2>/dev/null && curl -sf "http://127.0.0.1:$REST_PORT/v2/health/ready" >/dev/null 2>&1 && break
  kill -0 "$TFHOST_PID" 2>/dev/null || { cat "$WORK/tfhost.log" >&2; exit 1; }
  sleep 0.1
done

# v1 REST bodies for wrk: one row of random float32 values (written as
# Python prints a float32 widened to a double, as a client that does
# json.dumps(array.tolist()) sends them).
cat > "$WORK/post.lua" <<'LUA'
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
LUA
make_v1_body() {  # shape -> file with {"instances": [row]}
  python3 - "$1" <<'PY'
import json, random, struct, sys
dims = [int(d) for d in sys.argv[1].split(",")]
random.seed(1)
def f32(): return struct.unpack("f", struct.pack("f", random.random()))[0]
def build(d):
    return [f32() for _ in range(d[0])] if len(d) == 1 else [build(d[1:]) for _ in range(d[0])]
json.dump({"instances": [build(dims)]}, sys.stdout)
PY
}

# One measurement -> "infer_per_s p50_us p99_us errors tool".
run_pa() {  # protocol model input shape concurrency
  local protocol="$1" model="$2" input="$3" shape="$4" c="$5" csv="$WORK/pa.csv" errors
  local args=()
  case "$protocol" in
    v1-grpc) args=(--service-kind=tfserving -i grpc -u "127.0.0.1:$GRPC_PORT" --shape "$input:1,$shape") ;;
    v2-grpc) args=(--service-kind=triton -i grpc -u "127.0.0.1:$GRPC_PORT" --shape "$input:1,$shape") ;;
    v2-rest-binary) args=(--service-kind=triton -i http -u "127.0.0.1:$REST_PORT" --shape "$input:1,$shape") ;;
    v2-rest-json) args=(--service-kind=triton -i http -u "127.0.0.1:$REST_PORT" --shape "$input:1,$shape"
                        --input-tensor-format=json --output-tensor-format=json) ;;
  esac
  rm -f "$csv"
  # perf_analyzer stops with an error status on a failed request: the
  # count of its "had error" lines is the errors column.
  if "$PA" "${args[@]}" -m "$model" --concurrency-range "$c" --measurement-interval "$INTERVAL_MS" \
      --stability-percentage "$STABILITY" -f "$csv" >"$WORK/pa.log" 2>&1; then
    errors=0
  else
    errors="$(grep -c "had error" "$WORK/pa.log" || true)"
    [ "$errors" -gt 0 ] || errors="run-failed"
  fi
  if [ -f "$csv" ]; then
    # Concurrency,Inferences/Second,Client Send,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency
    local ips p50 p99
    IFS=, read -r _ ips _ _ p50 _ _ p99 < <(sed -n 2p "$csv")
    echo "$ips $p50 $p99 $errors perf_analyzer"
  else
    tail -3 "$WORK/pa.log" >&2
    echo "– – – $errors perf_analyzer"
  fi
}

run_wrk() {  # model shape concurrency
  local model="$1" shape="$2" c="$3" body="$WORK/v1-$1.json" out
  [ -f "$body" ] || make_v1_body "$shape" > "$body"
  out="$(BODY_FILE="$body" wrk -t"$(( c < 2 ? c : 2 ))" -c"$c" -d"$(( (3 * INTERVAL_MS + 999) / 1000 ))s" --latency -s "$WORK/post.lua" \
         "http://127.0.0.1:$REST_PORT/v1/models/$model:predict" 2>&1)" || { echo "$out" >&2; echo "– – – run-failed wrk"; return; }
  python3 - "$out" <<'PY'
import re, sys
t = sys.argv[1]
def us(v):
    m = re.match(r"([\d.]+)(us|ms|s|m)$", v)
    return float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6, "m": 6e7}[m.group(2)]
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
p50 = us(re.search(r"^\s+50%\s+(\S+)", t, re.M).group(1))
p99 = us(re.search(r"^\s+99%\s+(\S+)", t, re.M).group(1))
errors = sum(int(x) for x in re.findall(r"(?:connect|read|write|timeout) (\d+)", t))
m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
errors += int(m.group(1)) if m else 0
print(f"{rps:.1f} {p50:.0f} {p99:.0f} {errors} wrk")
PY
}

# The server's CPU time per request over a measurement (warm-up windows
# included): utime + stime of the tfhost process over the requests its
# metrics counted for the model. It tells the server's cost from the client's,
# which shares the CPUs.
TICKS="$(getconf CLK_TCK)"
server_ticks() { awk '{print $14 + $15}' "/proc/$TFHOST_PID/stat"; }
model_requests() {
  curl -sf "http://127.0.0.1:$REST_PORT/monitoring/prometheus/metrics" |
    awk -v m="model_name=\"$1\"" 'index($0, ":tensorflow:serving:request_count{") == 1 && index($0, m) {s += $NF} END {print s + 0}'
}

commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "perf_analyzer (v1-rest-json: wrk) against tfhost serve, $(date -u +%Y-%m-%d\ %H:%M) UTC, commit $commit, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), ${INTERVAL_MS} ms windows"
echo
echo "| model | concurrency | round | protocol | tool | infer/s | p50 µs | p99 µs | server CPU µs/req | errors |"
echo "|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
failed=0
declare -A IPS=()
for spec in $MODELS; do
  IFS=: read -r model input shape <<<"$spec"
  for c in $CONCURRENCY; do
    for round in $(seq "$ROUNDS"); do
      for protocol in $PROTOCOLS; do
        t0="$(server_ticks)"; n0="$(model_requests "$model")"
        case "$protocol" in
          v1-rest-json) read -r ips p50 p99 errors tool < <(run_wrk "$model" "$shape" "$c") ;;
          v1-grpc|v2-grpc|v2-rest-binary|v2-rest-json) read -r ips p50 p99 errors tool < <(run_pa "$protocol" "$model" "$input" "$shape" "$c") ;;
          *) echo "bench: unknown protocol '$protocol'" >&2; exit 1 ;;
        esac
        t1="$(server_ticks)"; n1="$(model_requests "$model")"
        cpu="$(python3 -c "n = $n1 - $n0; print(f'{($t1 - $t0) * 1e6 / $TICKS / n:.0f}' if n > 0 else '–')")"
        [ "$errors" = 0 ] || failed=1
        IPS["$model/$c/$protocol/$round"]="$ips"
        echo "| $model | $c | $round | $protocol | $tool | $ips | $p50 | $p99 | $cpu | $errors |" | tee -a "$WORK/rows.md"
      done
    done
  done
done

ratios() {  # numerator denominator model c -> "median (round ratios)" or nothing
  local r a b list=()
  for r in $(seq "$ROUNDS"); do
    a="${IPS[$3/$4/$1/$r]:-}"; b="${IPS[$3/$4/$2/$r]:-}"
    [[ "$a" =~ ^[0-9.]+$ && "$b" =~ ^[0-9.]+$ ]] && list+=("$a/$b")
  done
  [ "${#list[@]}" -gt 0 ] || return 0
  python3 -c "import statistics, sys; r = [eval(x) for x in sys.argv[1:]]; print(f'{statistics.median(r):.2f}' + (' (' + ', '.join(f'{x:.2f}' for x in r) + ')' if len(r) > 1 else ''))" "${list[@]}"
}
if [ "$ROUNDS" -gt 1 ]; then
  echo
  echo "medians over the $ROUNDS rounds (infer/s: lowest-highest round):"
  echo
  python3 - "$WORK/rows.md" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = [x.strip() for x in line.strip().strip("|").split("|")]
    rows.setdefault((f[0], f[1], f[3], f[4]), []).append(f)
def med(xs):
    v = [float(x) for x in xs if x not in ("–", "")]
    return statistics.median(v) if v else None
def fmt(v, digits=0):
    return "–" if v is None else f"{v:,.{digits}f}"
print("| model | concurrency | protocol | tool | infer/s | p50 µs | p99 µs | server CPU µs/req | errors |")
print("|---|---:|---|---|---:|---:|---:|---:|---:|")
for (model, c, protocol, tool), rs in rows.items():
    ips = [float(r[5]) for r in rs if r[5] != "–"]
    span = f" ({min(ips):,.0f}-{max(ips):,.0f})" if ips else ""
    errors = sum(int(r[9]) for r in rs if r[9].isdigit())
    bad = [r[9] for r in rs if not r[9].isdigit()]
    print(f"| {model} | {c} | {protocol} | {tool} | {fmt(med(r[5] for r in rs))}{span} | {fmt(med(r[6] for r in rs))} | "
          f"{fmt(med(r[7] for r in rs))} | {fmt(med(r[8] for r in rs))} | {errors if not bad else ', '.join(bad)} |")
PY
fi
echo
echo "throughput ratios, median over rounds (each round's ratio):"
for spec in $MODELS; do
  model="${spec%%:*}"
  for c in $CONCURRENCY; do
    r1="$(ratios v2-rest-binary v1-rest-json "$model" "$c")"
    r2="$(ratios v2-grpc v1-grpc "$model" "$c")"
    [ -z "$r1$r2" ] || echo "$model, concurrency $c: v2-rest-binary / v1-rest-json ${r1:-–}; v2-grpc / v1-grpc ${r2:-–}"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$failed"
