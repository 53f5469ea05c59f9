#!/usr/bin/env bash
# TF Serving gRPC load on `tfhost serve` from perf_analyzer, the load
# generator Triton and KServe operators use (--service-kind=tfserving), beside
# wrk (bench/serving_rest) and tfhost's own gRPC client (bench/serving_grpc).
# It serves tfhost's demo models and, per model and concurrency, runs one
# perf_analyzer measurement and prints a markdown row: throughput, p50 and
# p99, and the errors perf_analyzer saw (any error fails the run).
#
#   bench/serving_perf_analyzer/bench.sh [TFHOST_BINARY]
#   env: MODELS ("half_plus_two:x:1 mlp:x:1,4" = name:input:shape),
#        CONCURRENCY ("1 4 16"), INTERVAL_MS (5000, per measurement window),
#        STABILITY (50: % within which 3 windows must agree; perf_analyzer's
#        own default of 10 is rarely met on a shared 2-CPU machine),
#        SERVE_FLAGS (extra tfhost serve flags)
# Needs scripts/perf_analyzer (requirements/loadgen.txt, made on first use).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST="${1:-${TFHOST:-$ROOT/build/tfhost}}"
MODELS="${MODELS:-half_plus_two:x:1 mlp:x:1,4}"
CONCURRENCY="${CONCURRENCY:-1 4 16}"
INTERVAL_MS="${INTERVAL_MS:-5000}"
STABILITY="${STABILITY:-50}"
PA="$ROOT/scripts/perf_analyzer"

[ -x "$TFHOST" ] || { echo "bench: tfhost binary not found at $TFHOST" >&2; exit 1; }
WORK="$(mktemp -d /tmp/tfhost_pa_bench.XXXXXX)"
TFHOST_PID=""
cleanup() {
  [ -n "$TFHOST_PID" ] && kill "$TFHOST_PID" 2>/dev/null && wait "$TFHOST_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

{ "$PA" --help 2>&1 || true; } | grep -q -- --service-kind || { echo "bench: scripts/perf_analyzer does not run (see its header)" >&2; exit 1; }
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
# shellcheck disable=SC2086
"$TFHOST" serve --demo_models_dir "$WORK/models" --port="$PORT" --rest_api_port=0 --grpc_address=127.0.0.1 \
  ${SERVE_FLAGS:-} >"$WORK/tfhost.log" 2>&1 &
TFHOST_PID=$!
for _ in $(seq 300); do
  grep -q "gRPC API listening" "$WORK/tfhost.log" && break
  kill -0 "$TFHOST_PID" 2>/dev/null || { cat "$WORK/tfhost.log" >&2; exit 1; }
  sleep 0.1
done

commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "perf_analyzer --service-kind=tfserving -i grpc against tfhost serve, $(date -u +%Y-%m-%d\ %H:%M) UTC, commit $commit, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), ${INTERVAL_MS} ms windows"
echo
echo "| model | concurrency | infer/s | p50 µs | p99 µs | errors |"
echo "|---|---:|---:|---:|---:|---:|"
failed=0
for spec in $MODELS; do
  IFS=: read -r model input shape <<<"$spec"
  for c in $CONCURRENCY; do
    csv="$WORK/$model-$c.csv"
    # perf_analyzer stops with an error status on a failed request: the
    # count of its "had error" lines is the errors column.
    if "$PA" --service-kind=tfserving -i grpc -u "127.0.0.1:$PORT" -m "$model" --shape "$input:$shape" \
        --concurrency-range "$c" --measurement-interval "$INTERVAL_MS" --stability-percentage "$STABILITY" \
        -f "$csv" >"$WORK/pa.log" 2>&1; then
      errors=0
    else
      errors="$(grep -c "had error" "$WORK/pa.log" || true)"
      [ "$errors" -gt 0 ] || errors="run failed"
      failed=1
    fi
    if [ -f "$csv" ]; then
      # Concurrency,Inferences/Second,Client Send,Client Recv,p50 latency,p90 latency,p95 latency,p99 latency
      IFS=, read -r _ ips _ _ p50 _ _ p99 < <(sed -n 2p "$csv")
      echo "| $model | $c | $ips | $p50 | $p99 | $errors |"
    else
      echo "| $model | $c | – | – | – | $errors |"
      tail -3 "$WORK/pa.log" >&2
    fi
  done
done
exit "$failed"
