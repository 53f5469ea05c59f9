#!/usr/bin/env bash
# Installs every Debian 12 package tfhost's build, tests and fuzzers need.
# Idempotent: does nothing (not even apt-get update) when all are present.
# Uses sudo only when not running as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git
  protobuf-compiler libprotobuf-dev
  libleveldb-dev libsnappy-dev zlib1g-dev
  rapidjson-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  clang-14 libclang-rt-14-dev
  libboost-dev libgrpc++-dev protobuf-compiler-grpc python3-grpcio python3-protobuf python3-yaml
  libfarmhash-dev libhwloc-dev hwloc libcurl4-openssl-dev libdnnl-dev
  openmpi-bin libopenmpi-dev libgloo-dev
  wrk nginx-light slurm-wlm munge
  libjpeg62-turbo libpng16-16 libicu72
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#packages[@]} packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# s3rver (npm, pinned by its lock file) for tests/data_cache/s3rver_interop_test.sh;
# without npm that test skips and says why.
s3rver_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/data_cache/s3rver"
if [ ! -d "$s3rver_dir/node_modules/s3rver" ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "deps: npm ci in tests/data_cache/s3rver"
    # Not fatal: without the registry the build and every other test still run.
    (cd "$s3rver_dir" && npm ci --no-audit --no-fund --loglevel=error) ||
      { rm -rf "$s3rver_dir/node_modules"; echo "deps: npm ci failed; s3rver_interop_test will skip"; }
  else
    echo "deps: npm not found; s3rver_interop_test will skip"
  fi
fi
