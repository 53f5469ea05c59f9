#!/usr/bin/env bash
# Runs a command with TFHOST_ONNX_DIR set to the ONNX test models of the
# current generator and lock (onnx_dir.sh), generating them when missing.
#   with_onnx.sh COMMAND [ARGS...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! TFHOST_ONNX_DIR="$("$here/onnx_dir.sh" --ensure)"; then
  echo "with_onnx: tests/onnx/onnx_dir.sh --ensure failed; no ONNX models to test with" >&2
  exit 1
fi
export TFHOST_ONNX_DIR
exec "$@"
