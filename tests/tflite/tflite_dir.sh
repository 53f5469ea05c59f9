#!/usr/bin/env bash
# Prints the folder of the TFLite test models (TensorFlow's converter and
# LiteRT's outputs, from tests/tflite/generate.py, the zoo's models among
# them); tests/zoo/derived_dir.sh says how it is keyed and generated.
#   tests/tflite/tflite_dir.sh            print the folder
#   tests/tflite/tflite_dir.sh --ensure   generate it first if it is not complete
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
exec "$root/tests/zoo/derived_dir.sh" tflite tests/tflite/generate.py tests/tflite/tflite_dir.sh \
  "the TFLite test models (and the zoo's, converted)" "$@"
