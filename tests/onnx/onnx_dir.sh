#!/usr/bin/env bash
# Prints the folder of the ONNX test models (built with onnx.helper or
# converted with tf2onnx, some from the zoo, with ONNX Runtime's outputs, by
# tests/onnx/generate.py); tests/zoo/derived_dir.sh says how it is keyed and
# generated.
#   tests/onnx/onnx_dir.sh            print the folder
#   tests/onnx/onnx_dir.sh --ensure   generate it first if it is not complete
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec "$root/tests/zoo/derived_dir.sh" onnx tests/onnx/generate.py tests/onnx/onnx_dir.sh \
  "the ONNX test models (and some of the zoo's, converted)" "$@"
