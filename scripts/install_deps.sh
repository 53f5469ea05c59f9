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
  libssl-dev openssl curl
  openmpi-bin libopenmpi-dev libgloo-dev
  wrk nginx-light slurm-wlm munge
  libb64-0d
  libjpeg62-turbo libpng16-16 libicu72
  libicu-dev libre2-dev
  flatbuffers-compiler libflatbuffers-dev
  python3-venv
  patchelf debootstrap bash-completion
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

# The Python side of the tests (TensorFlow as the oracle, TF Serving's client
# stubs, moto's S3 server): a virtual environment outside the clone made from
# the locked requirements/test.txt, named by its hash (scripts/python_env.sh).
venv="$("$(dirname "${BASH_SOURCE[0]}")/python_env.sh" test)"
# perf_analyzer (scripts/perf_analyzer), for the serving tests and benches.
"$(dirname "${BASH_SOURCE[0]}")/python_env.sh" loadgen >/dev/null
# tritonclient and the kserve SDK, the Open Inference Protocol clients of tests/serving_v2.
"$(dirname "${BASH_SOURCE[0]}")/python_env.sh" kserve >/dev/null
# kubernetes-validate, for the checks of `tfhost serve --emit k8s` (tests/k8s).
"$(dirname "${BASH_SOURCE[0]}")/python_env.sh" k8s >/dev/null
echo "deps: Python environment $venv"
