#!/usr/bin/env bash
# CRC-32C throughput of every implementation this CPU runs (portable,
# SSE4.2 crc32 chains, AVX2 + 256-bit VPCLMULQDQ, AVX-512 VPCLMULQDQ), in GB
# per CPU-second: TFRecord-framed records as the reader checks them, and
# single inputs of 64 B to 1 MiB. src/base/crc32c_bench.cc says more.
#
# Usage: bench/data/crc32c.sh [ROUNDS]   (default 7)
#   Builds the bench next to a temporary copy of crc32c.cc with the same
#   compiler and -O3 the Release build uses; prints the load average before
#   and after, since figures on a shared machine mean little without it.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"${CXX:-c++}" -O3 -DNDEBUG -std=c++20 -I"$ROOT/src" "$ROOT/src/base/crc32c_bench.cc" "$ROOT/src/base/crc32c.cc" \
  -o "$WORK/crc32c_bench"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/crc32c_bench" "${1:-7}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
