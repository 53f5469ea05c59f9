#!/usr/bin/env bash
# The cache folder of a set of test models derived from the zoo by a Python
# generator that runs in the `peers` environment (the TFLite and ONNX
# conversions): ${TFHOST_CACHE:-~/.cache/tfhost}/<name>/<key>, where <key>
# hashes the generator, the calling script, this script, the `peers` lock
# and the zoo's own key, so the models are regenerated exactly when one of
# those changes. Kept apart from the zoo (zoo_dir.sh), whose key does not
# move with these.
#   derived_dir.sh NAME GENERATOR CALLER WHAT            print the folder
#   derived_dir.sh NAME GENERATOR CALLER WHAT --ensure   generate it first if it is not complete
# GENERATOR and CALLER are paths from the repository root; WHAT says what
# generation writes, for the log. The generator takes --out DIR --zoo DIR.
# Generation writes <dir>.partial and renames it, under a lock on <dir>.lock.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

[ $# -ge 4 ] || { echo "usage: $0 NAME GENERATOR CALLER WHAT [--ensure]" >&2; exit 2; }
name="$1" generator="$2" caller="$3" what="$4"
ensure=0
case "${5:-}" in
  "") ;;
  --ensure) ensure=1 ;;
  *) echo "usage: $caller [--ensure]" >&2; exit 2 ;;
esac

lock_file="$root/requirements/peers.txt"
[ -f "$lock_file" ] || { echo "${name}_dir: no Python lock at $lock_file" >&2; exit 2; }
zoo_key="$(basename "$("$here/zoo_dir.sh")")"
key="$(cd "$root" && { cat "$generator" "$caller" tests/zoo/derived_dir.sh requirements/peers.txt
                       echo "$zoo_key"; } | sha256sum | cut -c1-16)"
dir="${TFHOST_CACHE:-$HOME/.cache/tfhost}/$name/$key"

if [ "$ensure" = 1 ] && [ ! -f "$dir/.complete" ]; then
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  flock 9
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir.partial" "$dir"
    zoo="$("$here/zoo_dir.sh" --ensure)"
    echo "${name}_dir: writing $what into $dir" >&2
    if ! TFHOST_PYTHON_ENV=peers "$root/scripts/py" "$root/$generator" --out "$dir.partial" --zoo "$zoo" >&2; then
      echo "${name}_dir: generation failed; see the log above (partial output: $dir.partial)" >&2
      exit 1
    fi
    mv "$dir.partial" "$dir"
    touch "$dir/.complete"
  fi
  exec 9>&-
  touch "$dir/.used"
  "$root/scripts/prune_cache.sh" "$(dirname "$dir")" "" 2
elif [ -f "$dir/.complete" ]; then
  touch "$dir/.used"
fi
echo "$dir"
