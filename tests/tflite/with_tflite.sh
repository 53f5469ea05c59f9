#!/usr/bin/env bash
# Runs a command with TFHOST_TFLITE_DIR set to the TFLite test models of the
# current generator and lock (tflite_dir.sh), generating them when missing.
#   with_tflite.sh COMMAND [ARGS...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! TFHOST_TFLITE_DIR="$("$here/tflite_dir.sh" --ensure)"; then
  echo "with_tflite: tests/tflite/tflite_dir.sh --ensure failed; no TFLite models to test with" >&2
  exit 1
fi
export TFHOST_TFLITE_DIR
exec "$@"
