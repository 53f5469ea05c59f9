#!/usr/bin/env bash
# Runs a command with TFHOST_ZOO_DIR set to the zoo for the current generator
# and lock (tests/zoo/README.md), which the ctest fixture zoo_generate made
# (or this run makes, when run alone), so that serving checks can replay
# TensorFlow's recorded inputs and outputs.
#   with_zoo.sh COMMAND [ARGS...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
zoo_dir_sh="$root/tests/zoo/zoo_dir.sh"
if [ ! -f "$zoo_dir_sh" ]; then
  # The generator is optional while it is being written; the checks then say
  # they skipped the zoo pass.
  echo "with_zoo: $zoo_dir_sh does not exist; running without a zoo" >&2
  exec "$@"
fi
if ! TFHOST_ZOO_DIR="$(bash "$zoo_dir_sh" --ensure)"; then
  echo "with_zoo: tests/zoo/zoo_dir.sh --ensure failed; no zoo to serve" >&2
  exit 1
fi
export TFHOST_ZOO_DIR
exec "$@"
