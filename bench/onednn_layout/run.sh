#!/usr/bin/env bash
# A/B of activation layouts for the convolution chains of MobileNetV2 and
# ResNet-50 in oneDNN (onednn_layout_ab.cc): NHWC throughout vs each primitive's preferred
# layout (and, on the widest kernels, nChw16c forced), on this CPU's widest
# kernels and on the AVX2 ones
# (ONEDNN_MAX_CPU_ISA=AVX2), one thread at batch 1 and two at batch 32,
# ROUNDS alternating rounds. bf16 rows only where the CPU has avx512_bf16.
# NETWORKS (default "mobilenet_v2 resnet50") picks the chains; RUNS (default
# 20) the timed runs per row (ResNet-50 at batch 32 takes about a second a
# run on 2 cores).
#
#   bench/onednn_layout/run.sh [BINARY]     (default build/onednn_layout_ab)
#
# Which edges of a real model a blocked layout could cover at all (both ends
# on oneDNN) is onednn_chains.py's question, from a `tfhost bench --profile
# --json`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$root/build/onednn_layout_ab}"
ROUNDS="${ROUNDS:-3}"
NETWORKS="${NETWORKS:-mobilenet_v2 resnet50}"
RUNS="${RUNS:-20}"
[[ -x "$bin" ]] || { echo "run.sh: no binary at $bin (cmake --build build --target onednn_layout_ab)" >&2; exit 2; }
echo "# $(date -u '+%F %H:%M') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
dtypes="f32"
grep -q avx512_bf16 /proc/cpuinfo && dtypes="f32 bf16"
for round in $(seq "$ROUNDS"); do
  for network in $NETWORKS; do
  for isa in AVX2 DEFAULT; do
    for setting in "1 1" "32 2"; do
      read -r batch threads <<< "$setting"
      for dt in $dtypes; do
        [[ $isa == AVX2 && $dt == bf16 ]] && continue
        layouts="nhwc any"
        [[ $isa == DEFAULT ]] && layouts="nhwc any nChw16c"
        for layout in $layouts; do
          env_isa=()
          [[ $isa == AVX2 ]] && env_isa=(ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2)
          echo -n "round $round  isa $isa  threads $threads  "
          env "${env_isa[@]}" OMP_NUM_THREADS="$threads" "$bin" "$batch" "$layout" "$dt" "$RUNS" "$network"
        done
      done
    done
  done
  done
done
