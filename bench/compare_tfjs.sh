#!/usr/bin/env bash
# Times tfhost against TensorFlow.js (wasm and cpu backends) on the TF.js graph
# fixtures, in one run, on the same inputs (each fixture's reference inputs,
# written once as .npy by peers/tfjs/make_inputs.mjs and read by both sides;
# for rvm that is frame 1: the recurrent states are frame 0's outputs,
# downsample_ratio 0.5), batch 1, one thread each, and prints markdown tables
# for docs/perf.md:
#   1. tfhost vs TF.js: latency per model (median over rounds of each round's
#      p50, and the fastest run of all rounds), ratio tfhost/wasm;
#   2. tfhost alone over --threads 1,2 x --batch 1,8 (batch 8 only where the
#      model's input has an unknown leading dim; synthesized inputs, except
#      for rvm, whose recurrent states have no shape to synthesize from).
#
#   bench/compare_tfjs.sh                 # defaults below
#   RUNS=30 ROUNDS=3 CPU_RUNS=10 TFHOST=build/tfhost bench/compare_tfjs.sh
#
# Needs: a built tfhost, node, and `npm ci` in bench/peers/tfjs (done here if
# node_modules is missing; `make bench-peers` does it too). Everything reads
# local files; no network at run time. TFHOST_BENCH_FLAGS (e.g. "--kernels
# reference") is passed to every tfhost bench call.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
TFHOST="${TFHOST:-$root/build/tfhost}"
FIXTURES="${TFHOST_FIXTURES:-/work/shared/fixtures}"
MODELS="${MODELS:-nsfw_mobilenet_v2 blazeface rvm}"
RUNS="${RUNS:-30}"          # timed runs per round for tfhost and tfjs-wasm
ROUNDS="${ROUNDS:-3}"       # alternating tfhost / tfjs-wasm rounds
CPU_RUNS="${CPU_RUNS:-10}"  # tfjs-cpu takes seconds per run
WARMUP="${WARMUP:-5}"
SWEEP_RUNS="${SWEEP_RUNS:-20}"
read -r -a TFHOST_FLAGS <<< "${TFHOST_BENCH_FLAGS:-}"

[[ -x "$TFHOST" ]] || { echo "compare_tfjs.sh: no tfhost binary at $TFHOST (set TFHOST)" >&2; exit 2; }
peer="$here/peers/tfjs"
if [[ ! -d "$peer/node_modules/@tensorflow/tfjs-backend-wasm" ]]; then
  (cd "$peer" && npm ci --no-audit --no-fund >&2)
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ)  $(nproc) CPUs  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" >&2
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

for m in $MODELS; do
  dir="$FIXTURES/models/tfjs/$m"
  [[ -f "$dir/model.json" ]] || { echo "compare_tfjs.sh: no model at $dir" >&2; exit 1; }
  # The same .npy inputs for both sides: --input NAME=FILE per model input.
  inputs=()
  while IFS= read -r line; do inputs+=(--input "$line"); done \
    < <(node "$peer/make_inputs.mjs" "$dir" "$out/inputs/$m")
  # tfhost and tfjs-wasm alternate, ROUNDS times, so that load from other
  # processes on a shared machine falls on both rather than on one of them.
  for ((r = 0; r < ROUNDS; ++r)); do
    echo "# $m: round $((r + 1))/$ROUNDS tfhost, tfjs wasm" >&2
    "$TFHOST" bench "$dir" --batch 1 --threads 1 --runs "$RUNS" --warmup "$WARMUP" "${inputs[@]}" \
      "${TFHOST_FLAGS[@]}" --json > "$out/$m.tfhost.$r.json"
    node "$peer/bench.mjs" "$dir" --backend wasm --runs "$RUNS" --warmup "$WARMUP" "${inputs[@]}" --json \
      > "$out/$m.wasm.$r.json"
  done
  echo "# $m: tfjs cpu" >&2
  node "$peer/bench.mjs" "$dir" --backend cpu --runs "$CPU_RUNS" --warmup 1 "${inputs[@]}" --json \
    > "$out/$m.cpu.json"
  echo "# $m: tfhost sweep" >&2
  # Synthesized inputs take the batch size; a model whose inputs fix the
  # batch runs batch 1 only, and one whose inputs cannot be synthesized
  # (rvm's shapeless recurrent states) runs batch 1 on the reference inputs.
  if ! "$TFHOST" bench "$dir" --batch 1,8 --threads 1,2 --runs "$SWEEP_RUNS" --warmup 2 "${TFHOST_FLAGS[@]}" \
      --json > "$out/$m.sweep.json" 2> "$out/$m.sweep.err"; then
    if grep -q "only --batch 1" "$out/$m.sweep.err"; then
      "$TFHOST" bench "$dir" --batch 1 --threads 1,2 --runs "$SWEEP_RUNS" --warmup 2 "${TFHOST_FLAGS[@]}" --json \
        > "$out/$m.sweep.json"
    elif grep -q "unknown shape\|unknown dim" "$out/$m.sweep.err"; then
      "$TFHOST" bench "$dir" --batch 1 --threads 1,2 --runs "$SWEEP_RUNS" --warmup 2 "${inputs[@]}" \
        "${TFHOST_FLAGS[@]}" --json > "$out/$m.sweep.json"
    else
      cat "$out/$m.sweep.err" >&2
      exit 1
    fi
  fi
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

node --input-type=module - "$out" $MODELS <<'JS'
import fs from 'node:fs';
const [dir, ...models] = process.argv.slice(2);
const read = (f) => JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8'));
const ms = (x) => x.toFixed(1);
const pair = (r) => `${ms(r.p50_ms)} (${ms(r.min_ms)})`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rounds = (m, side) => fs.readdirSync(dir).filter((f) => f.startsWith(`${m}.${side}.`)).sort()
  .map((f) => { const j = read(f); return side === 'tfhost' ? j.results[0] : j; });
// Median over rounds of the per-round p50, and the fastest single run.
const summary = (rs) => ({ p50_ms: median(rs.map((r) => r.p50_ms)), min_ms: Math.min(...rs.map((r) => r.min_ms)),
                           runs: rs.reduce((a, r) => a + r.runs, 0) });
const first = read(`${models[0]}.wasm.0.json`);
console.log(`TF.js ${first.tfjs} on Node ${first.node}; wasm SIMD: ${first.simd ? 'yes' : 'no'}, ` +
            `wasm threads: ${first.threads}. Batch 1, one thread. Latency in ms: median of the per-round p50s ` +
            `(fastest run).\n`);
console.log('| model | tfhost | tfjs-wasm | tfjs-cpu | tfhost/wasm (p50) | tfhost/wasm (min) | ' +
            'per-round p50 ratios | runs: tfhost, wasm, cpu |');
console.log('|---|---:|---:|---:|---:|---:|---|---|');
for (const m of models) {
  const tr = rounds(m, 'tfhost'), wr = rounds(m, 'wasm');
  const t = summary(tr), w = summary(wr);
  const c = read(`${m}.cpu.json`);
  const perRound = tr.map((r, i) => (r.p50_ms / wr[i].p50_ms).toFixed(2)).join(', ');
  console.log(`| ${m} | ${pair(t)} | ${pair(w)} | ${pair(c)} | ${(t.p50_ms / w.p50_ms).toFixed(2)} | ` +
              `${(t.min_ms / w.min_ms).toFixed(2)} | ${perRound} | ${tr.length}×${tr[0].runs}, ` +
              `${wr.length}×${wr[0].runs}, ${c.runs} |`);
}
console.log('\n| model | kernels | batch | threads | runs | min ms | p50 ms | p90 ms | p99 ms | items/s | GFLOP/s (p50) | ' +
            'peak RSS MiB |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const m of models) {
  const j = read(`${m}.sweep.json`);
  for (const r of j.results) {
    const gflops = r.gflops_per_s === undefined ? '–' : r.gflops_per_s.toFixed(2);
    const rss = r.peak_rss_bytes > 0 ? (r.peak_rss_bytes / 2 ** 20).toFixed(0) : '–';
    console.log(`| ${m} | ${j.kernels ?? 'fast'} | ${r.batch} | ${r.threads} | ${r.runs} | ${ms(r.min_ms)} | ` +
                `${ms(r.p50_ms)} | ${ms(r.p90_ms)} | ${ms(r.p99_ms)} | ${r.items_per_s.toFixed(1)} | ${gflops} | ${rss} |`);
  }
}
JS
