#!/usr/bin/env bash
# Measures every target of the fast CPU path (issue 4) in one run and prints
# markdown tables ready for docs/perf.md (stdout); progress, machine and load
# average go to stderr. Each figure is a median over >= RUNS timed runs after
# WARMUP untimed ones; A/B pairs alternate in ROUNDS rounds so that load from
# other processes falls on both sides.
#
#   bench/fast_cpu/run.sh                     # all sections
#   SECTIONS="peak matmul" bench/fast_cpu/run.sh
#   TFHOST=build/tfhost FMA_PEAK=build/fma_peak RUNS=20 ROUNDS=3 bench/fast_cpu/run.sh
#
# Sections (SECTIONS, default all, in this order):
#   peak     bench/fma_peak on 1 and 2 threads: FMA peak (AVX-512/AVX2) and
#            oneDNN sgemm on cached shapes, the denominator of every "% of peak"
#   threads  nsfw_mobilenet_v2 batch 8, 2 threads vs 1: target throughput x1.7
#   batch32  nsfw_mobilenet_v2 batch 32, 2 threads: target >= 35% of the
#            measured 2-thread peak
#   matmul   one 512x512x512 MatMul through the engine (matmul_512.pbtxt):
#            target >= 75% of peak
#   matmul_avx2  (not in the default list) the same on oneDNN's AVX2 kernels
#            (ONEDNN_MAX_CPU_ISA=AVX2, what an AVX2-only CPU runs) against
#            fma_peak's AVX2 peak, on a CPU with AVX-512
#   cold     fresh processes: load + first inference of nsfw_mobilenet_v2
#            (target < 300 ms), peak RSS vs 2 x weight bytes + 64 MiB, on
#            nsfw_mobilenet_v2, blazeface and rvm
#   bf16     only when `tfhost bench --help` lists --precision: bf16 vs fp32
#            throughput at batch 32 (target x1.5) and max relative error on
#            the three models (target <= 2e-2), else a line saying it was skipped
# cold and bf16 feed each model its fixture reference inputs (rvm: frame 1),
# written as .npy by make_inputs.py.
#
# Needs: a built tfhost and fma_peak (cmake --build build --target tfhost
# fma_peak), python3, and for cold and bf16 the project's Python environment
# (scripts/py, for numpy). No network at run time.
# TFHOST_BENCH_FLAGS (e.g. "--kernels reference") goes to every tfhost call.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
TFHOST="${TFHOST:-$root/build/tfhost}"
FMA_PEAK="${FMA_PEAK:-$(dirname "$TFHOST")/fma_peak}"
FIXTURES="${TFHOST_FIXTURES:-$root/../shared/fixtures}"
RUNS="${RUNS:-20}"
WARMUP="${WARMUP:-5}"
ROUNDS="${ROUNDS:-3}"
BATCH32_RUNS="${BATCH32_RUNS:-$RUNS}"
COLD_RUNS="${COLD_RUNS:-5}"
COLD_THREADS="${COLD_THREADS:-0}"
SECTIONS="${SECTIONS:-peak threads batch32 matmul cold bf16}"
read -r -a TFHOST_FLAGS <<< "${TFHOST_BENCH_FLAGS:-}"
MODELS=(nsfw_mobilenet_v2 blazeface rvm)
py="$root/scripts/py"
tfjs_models="$FIXTURES/models/tfjs"
nsfw="$tfjs_models/nsfw_mobilenet_v2"

[[ -x "$TFHOST" ]] || { echo "run.sh: no tfhost binary at $TFHOST (set TFHOST)" >&2; exit 2; }
[[ -x "$FMA_PEAK" ]] || { echo "run.sh: no fma_peak binary at $FMA_PEAK (set FMA_PEAK)" >&2; exit 2; }
for m in "${MODELS[@]}"; do
  [[ -f "$tfjs_models/$m/model.json" ]] || { echo "run.sh: no model at $tfjs_models/$m" >&2; exit 1; }
done

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
log() { echo "# $(date -u +%H:%M:%S) $*" >&2; }
# tables COMMAND ARGS...: table rows and single values from the collected JSON.
tables() { python3 "$here/tables.py" "$@"; }

commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) CPUs  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" >&2
echo "# commit $commit; tfhost flags: ${TFHOST_BENCH_FLAGS:-none}; RUNS=$RUNS WARMUP=$WARMUP ROUNDS=$ROUNDS" >&2
echo "# load average before: $(load)" >&2
echo "Measured $(date -u +%Y-%m-%d\ %H:%M) UTC, commit $commit, $(nproc) CPUs, tfhost flags: \`${TFHOST_BENCH_FLAGS:-none}\`," \
     "load average at start $(load)."
echo

# ---------------------------------------------------------------- peak
peak1=""
peak2=""
avx2_peak1=""
avx2_peak2=""
if want peak || want batch32 || want matmul || want matmul_avx2; then
  log "fma_peak, 1 and 2 threads (load $(load))"
  "$FMA_PEAK" --threads 1 --json > "$out/peak1.json"
  "$FMA_PEAK" --threads 2 --json > "$out/peak2.json"
  peak1="$(tables field "$out/peak1.json" peak_gflops)"
  peak2="$(tables field "$out/peak2.json" peak_gflops)"
  avx2_peak1="$(tables isa_gflops "$out/peak1.json" avx2)"
  avx2_peak2="$(tables isa_gflops "$out/peak2.json" avx2)"
  if want peak; then
    echo "### Peak fp32 GFLOP/s (bench/fma_peak, best of 5 rounds)"
    echo
    echo "| threads | FMA ISA | FMA GFLOP/s | per core | sgemm 64³ | sgemm 128³ | sgemm 256³ | sgemm 512³ | load avg |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    for t in 1 2; do
      tables peak "$t" "$out/peak$t.json"
    done
    echo
    echo "GFLOP/s by CPU time (each thread's own for the FMA loop; the process's, shared over the threads, for"
    echo "sgemm), which leaves out time spent waiting for a CPU on a shared machine; wall-time figures beside them."
    echo "sgemm percentages are of the widest ISA's FMA peak on the same thread count. With 2 threads on a loaded"
    echo "machine oneDNN's OpenMP threads wait for each other, so its 2-thread figures say little there."
    echo
  fi
fi

# ---------------------------------------------------------------- inputs
# The .npy inputs of cold and bf16, one set per model, written once.
declare -A INPUTS
if want cold || want bf16; then
  for m in "${MODELS[@]}"; do
    INPUTS[$m]="$("$py" "$here/make_inputs.py" "$tfjs_models/$m" "$out/inputs/$m" --tfhost "$TFHOST" |
      sed 's/^/--input /' | tr '\n' ' ')"
  done
fi

# ---------------------------------------------------------------- threads
if want threads; then
  for ((r = 0; r < ROUNDS; ++r)); do
    log "threads: nsfw batch 8, threads 1,2, round $((r + 1))/$ROUNDS (load $(load))"
    "$TFHOST" bench "$nsfw" --batch 8 --threads 1,2 --runs "$RUNS" --warmup "$WARMUP" "${TFHOST_FLAGS[@]}" --json \
      > "$out/threads.$r.json"
  done
  echo "### Two threads vs one (nsfw_mobilenet_v2, batch 8)"
  echo
  echo "Throughput = batch / p50 latency; ratio per round, then the median. Target: >= 1.7."
  echo
  echo "| round | 1 thread items/s | 2 threads items/s | ratio |"
  echo "|---|---:|---:|---:|"
  files=()
  for ((r = 0; r < ROUNDS; ++r)); do files+=("$out/threads.$r.json"); done
  tables threads "${files[@]}"
  echo
fi

# ---------------------------------------------------------------- batch32
if want batch32; then
  log "batch32: nsfw batch 32, 2 threads (load $(load))"
  "$TFHOST" bench "$nsfw" --batch 32 --threads 2 --runs "$BATCH32_RUNS" --warmup "$WARMUP" \
    --peak-gflops "$(tables field "$out/peak1.json" peak_gflops_per_core)" "${TFHOST_FLAGS[@]}" --json > "$out/batch32.json"
  echo "### nsfw_mobilenet_v2, batch 32, two threads: fraction of the measured peak"
  echo
  echo "GFLOP/s = the graph's FLOPs per run (\`tfhost bench\`: 2 × multiply-adds of the conv/matmul ops) / p50."
  echo "Peak = bench/fma_peak on 2 threads, measured above. Target: >= 35%."
  echo
  echo "| runs | p50 ms | items/s | GFLOP per run | GFLOP/s | 2-thread peak | % of peak |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  tables batch32 "$peak2" "$out/batch32.json"
  echo
fi

# ---------------------------------------------------------------- matmul
# matmul_table JSON PEAK1 PEAK2 PEAK_LABEL: the 512^3 rows against the peaks.
matmul_table() {
  echo "| threads | runs | p50 ms | GFLOP/s | $4 | % of $4 |"
  echo "|---:|---:|---:|---:|---:|---:|"
  tables matmul "$1" "$2" "$3"
  echo
}

if want matmul; then
  log "matmul: 512^3, threads 1,2 (load $(load))"
  "$TFHOST" bench "$here/matmul_512.pbtxt" --threads 1,2 --runs "$((RUNS * 5))" --warmup "$WARMUP" \
    "${TFHOST_FLAGS[@]}" --json > "$out/matmul.json"
  echo "### 512×512×512 MatMul through the engine (bench/fast_cpu/matmul_512.pbtxt)"
  echo
  echo "Both operands are fed inputs (no weight pre-packing). Target: >= 75% of peak (same thread count)."
  echo
  matmul_table "$out/matmul.json" "$peak1" "$peak2" "peak"
fi

# ---------------------------------------------------------------- matmul_avx2
if want matmul_avx2; then
  log "matmul_avx2: 512^3 on oneDNN's AVX2 kernels, threads 1,2 (load $(load))"
  ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 "$TFHOST" bench "$here/matmul_512.pbtxt" --threads 1,2 \
    --runs "$((RUNS * 5))" --warmup "$WARMUP" "${TFHOST_FLAGS[@]}" --json > "$out/matmul_avx2.json"
  echo "### 512×512×512 MatMul on oneDNN's AVX2 kernels (ONEDNN_MAX_CPU_ISA=AVX2)"
  echo
  echo 'What an AVX2-only CPU runs (`gemm:jit`), measured against bench/fma_peak'"'"'s AVX2 FMA peak of this run.'
  echo
  matmul_table "$out/matmul_avx2.json" "$avx2_peak1" "$avx2_peak2" "AVX2 peak"
fi

# ---------------------------------------------------------------- cold
if want cold; then
  for m in "${MODELS[@]}"; do
    read -r -a in <<< "${INPUTS[$m]}"
    for ((i = 0; i < COLD_RUNS; ++i)); do
      log "cold: $m process $((i + 1))/$COLD_RUNS (load $(load))"
      "$TFHOST" bench "$tfjs_models/$m" --cold --threads "$COLD_THREADS" --runs 1 --warmup 0 "${in[@]}" \
        "${TFHOST_FLAGS[@]}" --json > "$out/cold.$m.$i.json"
    done
  done
  echo "### Cold start and memory (fresh process per measurement, --threads $COLD_THREADS)"
  echo
  echo "Median of $COLD_RUNS processes: \`tfhost bench MODEL --cold --runs 1 --warmup 0\` times LoadModel and the first run"
  echo "apart (page cache warm). Peak RSS: the process's high-water mark after load and two runs. Weight bytes: as"
  echo "the loader counts them (decoded TF.js weights). Targets: nsfw_mobilenet_v2 cold start < 300 ms; peak RSS <"
  echo "2 × weights + 64 MiB."
  echo
  echo "| model | load ms | first run ms | cold start ms | weights MiB | peak RSS MiB | 2 × weights + 64 MiB | RSS target |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  for m in "${MODELS[@]}"; do
    files=()
    for ((i = 0; i < COLD_RUNS; ++i)); do files+=("$out/cold.$m.$i.json"); done
    tables cold "$m" "${files[@]}"
  done
  echo
fi

# ---------------------------------------------------------------- bf16
if want bf16; then
  if "$TFHOST" bench --help 2>&1 | grep -q -- "--precision" && "$TFHOST" run --help 2>&1 | grep -q -- "--precision"; then
    for ((r = 0; r < ROUNDS; ++r)); do
      for p in fp32 bf16; do
        log "bf16: nsfw batch 32, 2 threads, --precision $p, round $((r + 1))/$ROUNDS (load $(load))"
        "$TFHOST" bench "$nsfw" --batch 32 --threads 2 --runs "$BATCH32_RUNS" --warmup "$WARMUP" --precision "$p" \
          "${TFHOST_FLAGS[@]}" --json > "$out/bf16.$p.$r.json"
      done
    done
    # Accuracy on every TF.js fixture model, on its reference inputs.
    for m in "${MODELS[@]}"; do
      read -r -a in <<< "${INPUTS[$m]}"
      for p in fp32 bf16; do
        "$TFHOST" run "$tfjs_models/$m" "${in[@]}" --precision "$p" --output-dir "$out/acc.$m.$p" \
          "${TFHOST_FLAGS[@]}" > /dev/null
      done
    done
    echo "### bf16 vs fp32 (nsfw_mobilenet_v2, batch 32, two threads)"
    echo
    echo "Throughput = batch / p50, median over $ROUNDS alternating rounds. Target: bf16/fp32 >= 1.5."
    echo
    files=()
    for ((r = 0; r < ROUNDS; ++r)); do files+=("$out/bf16.fp32.$r.json" "$out/bf16.bf16.$r.json"); done
    tables bf16 "${files[@]}"
    echo
    echo "Max relative error of bf16 vs fp32 outputs (max |bf16 − fp32| / max |fp32| per output; target <= 2e-2):"
    echo
    echo "| model | output | max rel. error | target |"
    echo "|---|---|---:|---|"
    for m in "${MODELS[@]}"; do
      "$py" "$here/compare_npy.py" "$m" "$out/acc.$m.fp32" "$out/acc.$m.bf16" 2e-2
    done
    echo
  else
    echo "bf16: skipped — this tfhost has no --precision option on bench and run."
    echo
  fi
fi

echo "# load average after: $(load)" >&2
echo "Load average at the end: $(load)."
