#!/usr/bin/env bash
# The NCCL checks that need a GPU machine, in one go: builds tfhost and the
# NCCL tests, runs them (the real-GPU test runs 1 and all local ranks with a
# check of every reduced value), then `tfhost bench allreduce --backend nccl
# --check` under `tfhost launch` with 1 and with all local GPUs, printing
# each table. Exits non-zero at the first failure.
#
#   bench/allreduce/gpu_check.sh            # build dir: build-gpu-check
#   BUILD=/path/to/build SIZES=8:256M bench/allreduce/gpu_check.sh
#
# Needs: an NVIDIA driver with at least one GPU, libnccl.so.2 and
# libcudart.so.{13,12,11.0} where the dynamic linker finds them (or
# TFHOST_NCCL_LIBRARY / TFHOST_CUDART_LIBRARY naming the files).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD:-$ROOT/build-gpu-check}"
SIZES="${SIZES:-8:1G}"
ITERS="${ITERS:-20}"
JOBS="${JOBS:-$(nproc)}"

echo "== GPUs"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L; then
  echo "gpu_check: nvidia-smi finds no GPU; this script needs a GPU machine" >&2
  exit 2
fi
NGPU="$(nvidia-smi -L | grep -c '^GPU')"
if [[ -n "${CUDA_VISIBLE_DEVICES:-}" ]]; then
  NGPU="$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)"
fi
nvidia-smi topo -m || true

echo "== build ($BUILD)"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTFHOST_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target tfhost nccl_collective_test nccl_link_test
TFHOST="$(find "$BUILD" -type f -name tfhost -perm -u+x | head -n1)"
NCCL_TEST="$(find "$BUILD" -type f -name nccl_collective_test | head -n1)"
LINK_TEST="$(find "$BUILD" -type f -name nccl_link_test | head -n1)"

echo "== unit tests (NcclGpuTest must run, not skip)"
"$LINK_TEST"
"$NCCL_TEST" 2>&1 | tee "$BUILD/nccl_collective_test.log"
if grep -q 'SKIPPED.*NcclGpuTest' "$BUILD/nccl_collective_test.log"; then
  echo "gpu_check: NcclGpuTest skipped (see its reason above): NCCL, the CUDA runtime or the GPU was not found" >&2
  exit 1
fi

run_bench() {
  local ranks="$1"
  echo "== tfhost bench allreduce --backend nccl --check, $ranks rank(s) under tfhost launch"
  "$TFHOST" launch --workers "$ranks" -- \
    "$TFHOST" bench allreduce --backend nccl --check --sizes "$SIZES" --iters "$ITERS" --timeout 120
}
run_bench 1
if (( NGPU > 1 )); then
  run_bench "$NGPU"
fi
echo "== gpu_check: all NCCL checks passed on $NGPU GPU(s)"
