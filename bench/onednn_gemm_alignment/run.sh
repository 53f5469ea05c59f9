#!/usr/bin/env bash
# oneDNN matmul with its second operand cache-line aligned vs 16 bytes off,
# on the AVX2 kernels (ONEDNN_MAX_CPU_ISA=AVX2: the gemm-based MatMul) and
# on this CPU's own, 1 and 2 threads (gemm_alignment_ab.cc).
#
#   bench/onednn_gemm_alignment/run.sh [BINARY]   (default build/gemm_alignment_ab)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$root/build/gemm_alignment_ab}"
[[ -x "$bin" ]] || { echo "run.sh: no binary at $bin (cmake --build build --target gemm_alignment_ab)" >&2; exit 2; }
echo "# $(date -u '+%F %H:%M') UTC, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for isa in AVX2 DEFAULT; do
  for threads in 1 2; do
    echo "## kernels $isa, $threads thread(s); x = aligned / that column (above 1: faster)"
    if [[ $isa == AVX2 ]]; then
      ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 OMP_NUM_THREADS=$threads "$bin"
    else
      OMP_NUM_THREADS=$threads "$bin"
    fi
  done
done
