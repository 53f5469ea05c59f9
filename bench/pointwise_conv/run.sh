#!/usr/bin/env bash
# tfhost's SIMD 1x1 convolution vs oneDNN's, 1 and 2 threads
# (pointwise_conv_ab.cc; AVX-512 CPUs only, as the kernel). OpenMP threads
# wait passively, as tfhost runs them: spinning ones would take the core the
# SIMD kernel's second thread needs right after each oneDNN call.
#
#   bench/pointwise_conv/run.sh [BINARY] [ROUNDS] [MODEL] [PRECISION]
#   (default build/pointwise_conv_ab, 7, both models, fp32; PRECISION bf16:
#   bf16 nodes, oneDNN's bf16 primitive vs the SIMD kernel's dot products)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bin="${1:-$root/build/pointwise_conv_ab}"
rounds="${2:-7}"
[[ -x "$bin" ]] || { echo "run.sh: no binary at $bin (cmake --build build --target pointwise_conv_ab)" >&2; exit 2; }
echo "# $(date -u '+%F %H:%M') UTC, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
OMP_WAIT_POLICY=passive "$bin" "$rounds" "${3:-}" ${4:+"$4"}
