#!/usr/bin/env bash
# Runs zoo_test against the zoo for the current generator and lock, which the
# ctest fixture zoo_generate made (or this run makes, when run alone).
#   run_zoo_test.sh ZOO_TEST_BINARY [gtest flags...]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
TFHOST_ZOO_DIR="$("$here/zoo_dir.sh" --ensure)"
export TFHOST_ZOO_DIR
exec "$@"
