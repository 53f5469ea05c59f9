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
#   tfjs     tfhost vs TensorFlow.js wasm+SIMD, one thread, batch 1, the same
#            .npy inputs (fixture reference inputs; rvm frame 1) on
#            nsfw_mobilenet_v2, blazeface, rvm: target tfhost <= 1/5 of wasm
#   threads  nsfw_mobilenet_v2 batch 8, 2 threads vs 1: target throughput x1.7
#   batch32  nsfw_mobilenet_v2 batch 32, 2 threads: target >= 35% of the
#            measured 2-thread peak
#   matmul   one 512x512x512 MatMul through the engine (matmul_512.pbtxt):
#            target >= 75% of peak
#   matmul_avx2  (not in the default list) the same on oneDNN's AVX2 kernels
#            (ONEDNN_MAX_CPU_ISA=AVX2, what an AVX2-only CPU runs) against
#            fma_peak's AVX2 peak, on a CPU with AVX-512
#   cold     fresh processes: load + first inference of nsfw_mobilenet_v2
#            (target < 300 ms), peak RSS vs 2 x weight bytes + 64 MiB
#   bf16     only when `tfhost bench --help` lists --precision: bf16 vs fp32
#            throughput at batch 32 (target x1.5) and max relative error
#            (target <= 2e-2), else a line saying it was skipped
#
# Needs: a built tfhost and fma_peak (cmake --build build --target tfhost
# fma_peak), node, and npm packages in bench/peers/tfjs (installed with
# `npm ci` from the lock file when missing). No network at run time.
# TFHOST_BENCH_FLAGS (e.g. "--kernels reference") goes to every tfhost call.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
TFHOST="${TFHOST:-$root/build/tfhost}"
FMA_PEAK="${FMA_PEAK:-$(dirname "$TFHOST")/fma_peak}"
FIXTURES="${TFHOST_FIXTURES:-/work/shared/fixtures}"
RUNS="${RUNS:-20}"
WARMUP="${WARMUP:-5}"
ROUNDS="${ROUNDS:-3}"
BATCH32_RUNS="${BATCH32_RUNS:-$RUNS}"
COLD_RUNS="${COLD_RUNS:-5}"
COLD_THREADS="${COLD_THREADS:-0}"
SECTIONS="${SECTIONS:-peak tfjs threads batch32 matmul cold bf16}"
read -r -a TFHOST_FLAGS <<< "${TFHOST_BENCH_FLAGS:-}"
MODELS=(nsfw_mobilenet_v2 blazeface rvm)
peer="$root/bench/peers/tfjs"
tfjs_models="$FIXTURES/models/tfjs"
nsfw="$tfjs_models/nsfw_mobilenet_v2"

[[ -x "$TFHOST" ]] || { echo "run.sh: no tfhost binary at $TFHOST (set TFHOST)" >&2; exit 2; }
[[ -x "$FMA_PEAK" ]] || { echo "run.sh: no fma_peak binary at $FMA_PEAK (set FMA_PEAK)" >&2; exit 2; }
for m in "${MODELS[@]}"; do
  [[ -f "$tfjs_models/$m/model.json" ]] || { echo "run.sh: no model at $tfjs_models/$m" >&2; exit 1; }
done
if [[ ! -d "$peer/node_modules/@tensorflow/tfjs-backend-wasm" ]]; then
  (cd "$peer" && npm ci --no-audit --no-fund >&2)
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
log() { echo "# $(date -u +%H:%M:%S) $*" >&2; }
# js 'expression' FILE...: evaluates a JS expression with the parsed JSON files
# as J[0], J[1], ... and the helpers median/fmt; prints the result.
js() {
  local expr="$1"
  shift
  node --input-type=module -e "
import fs from 'node:fs';
const J = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const fmt = (x, d = 1) => (x === undefined || x === null || Number.isNaN(x) ? '–' : Number(x).toFixed(d));
console.log($expr);" "$@"
}

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
  peak1="$(js 'J[0].peak_gflops' "$out/peak1.json")"
  peak2="$(js 'J[0].peak_gflops' "$out/peak2.json")"
  avx2_peak1="$(js "(J[0].fma.find((f) => f.isa === 'avx2') || {}).gflops" "$out/peak1.json")"
  avx2_peak2="$(js "(J[0].fma.find((f) => f.isa === 'avx2') || {}).gflops" "$out/peak2.json")"
  if want peak; then
    echo "### Peak fp32 GFLOP/s (bench/fma_peak, best of 5 rounds)"
    echo
    echo "| threads | FMA ISA | FMA GFLOP/s | per core | sgemm 64³ | sgemm 128³ | sgemm 256³ | sgemm 512³ | load avg |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
    for t in 1 2; do
      js "J[0].fma.map((f, i) => \`| ${t} | \${f.isa} | \${fmt(f.gflops)} (wall \${fmt(f.gflops_wall)}) | \` +
          \`\${fmt(f.gflops_per_core)} | \` + J[0].sgemm.map((g) => i > 0 ? '' :
          \`\${fmt(g.gflops)} (\${fmt(100 * g.fraction_of_peak, 0)}%), wall \${fmt(g.gflops_wall)}\`).join(' | ') +
          \` | \${fmt(J[0].load_average, 2)} |\`).join('\n')" "$out/peak$t.json"
    done
    echo
    echo "GFLOP/s by CPU time (each thread's own for the FMA loop; the process's, shared over the threads, for"
    echo "sgemm), which leaves out time spent waiting for a CPU on a shared machine; wall-time figures beside them."
    echo "sgemm percentages are of the widest ISA's FMA peak on the same thread count. With 2 threads on a loaded"
    echo "machine oneDNN's OpenMP threads wait for each other, so its 2-thread figures say little there."
    echo
  fi
fi

# ---------------------------------------------------------------- tfjs
declare -A INPUTS
for m in "${MODELS[@]}"; do
  INPUTS[$m]="$(node "$peer/make_inputs.mjs" "$tfjs_models/$m" "$out/inputs/$m" | sed 's/^/--input /' | tr '\n' ' ')"
done
if want tfjs; then
  for m in "${MODELS[@]}"; do
    read -r -a in <<< "${INPUTS[$m]}"
    for ((r = 0; r < ROUNDS; ++r)); do
      log "tfjs: $m round $((r + 1))/$ROUNDS (load $(load))"
      "$TFHOST" bench "$tfjs_models/$m" --threads 1 --runs "$RUNS" --warmup "$WARMUP" "${in[@]}" \
        "${TFHOST_FLAGS[@]}" --json > "$out/tfjs.$m.tfhost.$r.json"
      node "$peer/bench.mjs" "$tfjs_models/$m" --backend wasm --runs "$RUNS" --warmup "$WARMUP" "${in[@]}" --json \
        > "$out/tfjs.$m.wasm.$r.json"
    done
  done
  echo "### tfhost vs TensorFlow.js wasm+SIMD (one thread, batch 1, same inputs)"
  echo
  echo "p50 latency in ms: median of the $ROUNDS per-round p50s ($RUNS runs each, after $WARMUP warm-up runs)."
  echo "Target: wasm/tfhost >= 5."
  echo
  echo "| model | tfhost ms | tfjs-wasm ms | wasm/tfhost | per-round wasm/tfhost | target ≥ 5 |"
  echo "|---|---:|---:|---:|---|---|"
  for m in "${MODELS[@]}"; do
    files=()
    for ((r = 0; r < ROUNDS; ++r)); do files+=("$out/tfjs.$m.tfhost.$r.json" "$out/tfjs.$m.wasm.$r.json"); done
    js "(() => { const t = [], w = [];
      for (let i = 0; i < J.length; i += 2) { t.push(J[i].results[0].p50_ms); w.push(J[i + 1].p50_ms); }
      const ratio = median(w) / median(t);
      return \`| $m | \${fmt(median(t))} | \${fmt(median(w))} | \${fmt(ratio, 2)} | \` +
        t.map((x, i) => fmt(w[i] / x, 2)).join(', ') + \` | \${ratio >= 5 ? 'met' : 'not met'} |\`; })()" "${files[@]}"
  done
  echo
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
  js "(() => { const rows = [], ratios = [];
    J.forEach((j, i) => { const [a, b] = j.results; const x = a.batch * 1000 / a.p50_ms, y = b.batch * 1000 / b.p50_ms;
      ratios.push(y / x); rows.push(\`| \${i + 1} | \${fmt(x)} | \${fmt(y)} | \${fmt(y / x, 2)} |\`); });
    const m = median(ratios);
    return rows.join('\n') + \`\n| median | | | **\${fmt(m, 2)}** (\${m >= 1.7 ? 'met' : 'not met'}) |\`; })()" "${files[@]}"
  echo
fi

# ---------------------------------------------------------------- batch32
if want batch32; then
  log "batch32: nsfw batch 32, 2 threads (load $(load))"
  "$TFHOST" bench "$nsfw" --batch 32 --threads 2 --runs "$BATCH32_RUNS" --warmup "$WARMUP" \
    --peak-gflops "$(js 'J[0].peak_gflops_per_core' "$out/peak1.json")" "${TFHOST_FLAGS[@]}" --json > "$out/batch32.json"
  echo "### nsfw_mobilenet_v2, batch 32, two threads: fraction of the measured peak"
  echo
  echo "GFLOP/s = the graph's FLOPs per run (\`tfhost bench\`: 2 × multiply-adds of the conv/matmul ops) / p50."
  echo "Peak = bench/fma_peak on 2 threads, measured above. Target: >= 35%."
  echo
  echo "| runs | p50 ms | items/s | GFLOP per run | GFLOP/s | 2-thread peak | % of peak |"
  echo "|---:|---:|---:|---:|---:|---:|---:|"
  js "(() => { const r = J[0].results[0]; const pct = 100 * r.gflops_per_s / $peak2;
    return \`| \${r.runs} | \${fmt(r.p50_ms)} | \${fmt(r.items_per_s)} | \${fmt(r.flops_per_run / 1e9, 2)} | \` +
      \`\${fmt(r.gflops_per_s)} | \${fmt($peak2)} | **\${fmt(pct)}%** (\${pct >= 35 ? 'met' : 'not met'}) |\`; })()" \
    "$out/batch32.json"
  echo
fi

# ---------------------------------------------------------------- matmul
# matmul_table JSON PEAK1 PEAK2 PEAK_LABEL: the 512^3 rows against the peaks.
matmul_table() {
  echo "| threads | runs | p50 ms | GFLOP/s | $4 | % of $4 |"
  echo "|---:|---:|---:|---:|---:|---:|"
  js "J[0].results.map((r) => { const peak = r.threads === 1 ? $2 : $3; const pct = 100 * r.gflops_per_s / peak;
    return \`| \${r.threads} | \${r.runs} | \${fmt(r.p50_ms, 3)} | \${fmt(r.gflops_per_s)} | \${fmt(peak)} | \` +
      \`**\${fmt(pct)}%** (\${pct >= 75 ? 'met' : 'not met'}) |\`; }).join('\n')" "$1"
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
    js "(() => { const MiB = 2 ** 20; const w = J[0].weight_bytes / MiB;
      const rss = median(J.map((j) => j.process_peak_rss_bytes)) / MiB; const limit = 2 * w + 64;
      const total = median(J.map((j) => j.cold.total_ms));
      const name = '$m' === 'nsfw_mobilenet_v2' ? \`$m (\${total < 300 ? 'met' : 'not met'})\` : '$m';
      return \`| \${name} | \${fmt(median(J.map((j) => j.cold.load_ms)))} | \${fmt(median(J.map((j) => j.cold.first_run_ms)))} | \` +
        \`**\${fmt(total)}** | \${fmt(w)} | \${fmt(rss)} | \${fmt(limit)} | \${rss < limit ? 'met' : 'not met'} |\`; })()" \
      "${files[@]}"
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
    js "(() => { const f = [], b = [];
      for (let i = 0; i < J.length; i += 2) { f.push(32000 / J[i].results[0].p50_ms); b.push(32000 / J[i + 1].results[0].p50_ms); }
      const ratio = median(b) / median(f);
      return '| fp32 items/s | bf16 items/s | bf16/fp32 |\n|---:|---:|---:|\n' +
        \`| \${fmt(median(f))} | \${fmt(median(b))} | **\${fmt(ratio, 2)}** (\${ratio >= 1.5 ? 'met' : 'not met'}) |\`; })()" \
      "${files[@]}"
    echo
    echo "Max relative error of bf16 vs fp32 outputs (max |bf16 − fp32| / max |fp32| per output; target <= 2e-2):"
    echo
    echo "| model | output | max rel. error | target |"
    echo "|---|---|---:|---|"
    for m in "${MODELS[@]}"; do
      node "$here/compare_npy.mjs" "$m" "$out/acc.$m.fp32" "$out/acc.$m.bf16" 2e-2
    done
    echo
  else
    echo "bf16: skipped — this tfhost has no --precision option on bench and run."
    echo
  fi
fi

echo "# load average after: $(load)" >&2
echo "Load average at the end: $(load)."
