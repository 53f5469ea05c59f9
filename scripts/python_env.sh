#!/usr/bin/env bash
# The project's Python environment: a virtual environment outside the clone,
# made from the locked requirements/NAME.txt (exact pins and hashes) and named
# by a hash of that lock, so every clone and CI run on a machine shares one,
# and a changed lock makes a new one instead of mutating the old.
#   scripts/python_env.sh [NAME]   ensures it exists, prints its directory
# NAME defaults to "test". Cache root: $TFHOST_CACHE (default ~/.cache/tfhost).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="${1:-test}"
lock="$root/requirements/$name.txt"
[ -f "$lock" ] || { echo "python_env: no lock file $lock" >&2; exit 2; }
cache="${TFHOST_CACHE:-$HOME/.cache/tfhost}"
key="$(cat "$lock" | sha256sum | cut -c1-16)"
venv="$cache/venv/$name-$key"
mkdir -p "$cache/venv"
# Two builds (a test run beside `make deps`) wait for each other.
exec 9>"$venv.lock"
flock 9
if [ ! -f "$venv/.complete" ]; then
  # Debian's interpreter, not whatever python3 a user's PATH puts first: the
  # lock was resolved for CPython 3.11 on Linux x86-64.
  py=/usr/bin/python3
  [ -x "$py" ] || py="$(command -v python3)"
  # Scripts in a venv name its path, so it is built where it will live; the
  # .complete mark, written last, tells a finished one from an interrupted one.
  rm -rf "$venv"
  echo "python_env: creating $venv from requirements/$name.txt" >&2
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir \
    --require-hashes --only-binary=:all: -r "$lock" >&2
  touch "$venv/.complete"
  touch "$venv/.used"
  # Environments of older locks of this name: the two most recently used
  # stay (a branch switch back finds its own), older ones go.
  "$root/scripts/prune_cache.sh" "$cache/venv" "$name-" 2
fi
touch "$venv/.used"
echo "$venv"
