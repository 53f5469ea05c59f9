#!/usr/bin/env bash
# Runs a command with TFHOST_ZOO_DIR set to the zoo of the current generator
# and lock (tests/zoo/README.md), which the ctest fixture zoo_generate made,
# or this run makes when run alone: zoo_test, and the serving checks that
# replay TensorFlow's recorded inputs and outputs through `tfhost serve`.
#   with_zoo.sh COMMAND [ARGS...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! TFHOST_ZOO_DIR="$("$here/zoo_dir.sh" --ensure)"; then
  echo "with_zoo: tests/zoo/zoo_dir.sh --ensure failed; no zoo to test with" >&2
  exit 1
fi
export TFHOST_ZOO_DIR
exec "$@"
