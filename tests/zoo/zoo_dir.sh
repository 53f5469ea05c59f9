#!/usr/bin/env bash
# Prints the zoo's cache folder: ${TFHOST_CACHE:-~/.cache/tfhost}/zoo/<key>,
# where <key> hashes the generator (every .py under tests/zoo/, in path
# order, and this script, which runs it) and the Python lock, so the zoo is
# regenerated exactly when one of them changes, and not for the test wrappers.
#   tests/zoo/zoo_dir.sh            print the folder
#   tests/zoo/zoo_dir.sh --ensure   generate it first if it is not complete
# Generation writes <dir>.partial and renames it, under a lock on <dir>.lock,
# so a reader never sees half a zoo and two callers do not both generate.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

ensure=0
case "${1:-}" in
  "") ;;
  --ensure) ensure=1 ;;
  *) echo "usage: $0 [--ensure]" >&2; exit 2 ;;
esac

lock_file="$root/requirements/test.txt"
[ -f "$lock_file" ] || { echo "zoo_dir: no Python lock at $lock_file" >&2; exit 2; }
key="$(
  cd "$root"
  { find tests/zoo -type f -name '*.py' -print0 | LC_ALL=C sort -z | xargs -0 cat
    cat tests/zoo/zoo_dir.sh requirements/test.txt; } | sha256sum | cut -c1-16
)"
dir="${TFHOST_CACHE:-$HOME/.cache/tfhost}/zoo/$key"

if [ "$ensure" = 1 ] && [ ! -f "$dir/.complete" ]; then
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  flock 9
  # Another caller may have finished while this one waited for the lock.
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir.partial" "$dir"
    echo "zoo_dir: generating the model zoo into $dir (takes minutes)" >&2
    if ! "$root/scripts/py" "$here/generate.py" --out "$dir.partial" >&2; then
      echo "zoo_dir: zoo generation failed; see the log above (partial output: $dir.partial)" >&2
      exit 1
    fi
    mv "$dir.partial" "$dir"
    touch "$dir/.complete"
  fi
  exec 9>&-
  # Zoos of other generator versions: the two most recently used stay (a
  # branch switch back finds its zoo), older ones go.
  touch "$dir/.used"
  "$root/scripts/prune_cache.sh" "$(dirname "$dir")" "" 2
elif [ -f "$dir/.complete" ]; then
  touch "$dir/.used"
fi
echo "$dir"
