#!/usr/bin/env bash
# tfhost against the runtimes users run instead of it (TensorFlow, ONNX
# Runtime, OpenVINO, LiteRT with XNNPACK) on the same models, inputs, machine
# and run; see bench/peers/README.md. Prints the markdown table on stdout,
# progress on stderr, and writes results.md and results.json under
# bench/peers/results/<UTC time>/.
#
#   bench/peers/run.sh
#   MODELS=mobilenet_v2 ROUNDS=1 RUNS=5 bench/peers/run.sh      # a quick look
#
# Knobs (environment): MODELS RUNTIMES SETTINGS ROUNDS RUNS BIG_RUNS WARMUP BIG_WARMUP
# BIG_BATCH TFHOST RESULTS_DIR STEP_TIMEOUT, described in bench.py.
# The Python side runs in the locked environment requirements/peers.txt,
# which scripts/py creates on first use (a few minutes).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export TFHOST="${TFHOST:-$root/build/tfhost}"
if [[ ! -x "$TFHOST" ]]; then
  echo "run.sh: no tfhost binary at $TFHOST (make build, or set TFHOST)" >&2
  exit 2
fi
# TensorFlow's C++ logging would bury the progress lines in each log file;
# warnings and errors still get through.
export TF_CPP_MIN_LOG_LEVEL="${TF_CPP_MIN_LOG_LEVEL:-2}"
TFHOST_PYTHON_ENV=peers exec "$root/scripts/py" "$here/bench.py"
