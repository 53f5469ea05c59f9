#!/usr/bin/env bash
# Re-locks requirements/NAME.txt from requirements/NAME.in: exact pins with
# sha256 hashes for Linux x86-64 and CPython 3.11 (Debian 12's python3), so
# that `make deps` installs byte-identical wheels with pip --require-hashes.
# Run it by hand after editing a .in file; the lock is what the build uses.
#   scripts/lock_requirements.sh [NAME ...]     (default: every requirements/*.in)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool="${TFHOST_CACHE:-$HOME/.cache/tfhost}/lock-tool"
# The resolver is a tool of the maintainer, not of the build: it lives in its
# own environment and never enters the locked ones.
if [ ! -x "$tool/bin/uv" ]; then
  python3 -m venv "$tool"
  "$tool/bin/pip" install -q uv
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$root"/requirements/*.in; do names+=("$(basename "$f" .in)"); done
fi
for name in "${names[@]}"; do
  "$tool/bin/uv" pip compile -q --generate-hashes --python-version 3.11 \
    --python-platform x86_64-manylinux_2_28 --no-header \
    "$root/requirements/$name.in" -o "$root/requirements/$name.txt"
  echo "locked requirements/$name.txt"
done
