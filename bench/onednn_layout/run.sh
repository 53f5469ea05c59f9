#!/usr/bin/env bash
# A/B of activation layouts for a MobileNetV2 convolution chain in oneDNN
# (onednn_layout_ab.cc): NHWC throughout vs each primitive's preferred
# layout (and, on the widest kernels, nChw16c forced), on this CPU's widest
# kernels and on the AVX2 ones
# (ONEDNN_MAX_CPU_ISA=AVX2), one thread at batch 1 and two at batch 32,
# ROUNDS alternating rounds. bf16 rows only where the CPU has avx512_bf16.
#
#   bench/onednn_layout/run.sh [BINARY]     (default build/onednn_layout_ab)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$root/build/onednn_layout_ab}"
ROUNDS="${ROUNDS:-3}"
[[ -x "$bin" ]] || { echo "run.sh: no binary at $bin (cmake --build build --target onednn_layout_ab)" >&2; exit 2; }
echo "# $(date -u '+%F %H:%M') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
dtypes="f32"
grep -q avx512_bf16 /proc/cpuinfo && dtypes="f32 bf16"
for round in $(seq "$ROUNDS"); do
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
          env "${env_isa[@]}" OMP_NUM_THREADS="$threads" "$bin" "$batch" "$layout" "$dt" 20
        done
      done
    done
  done
done
