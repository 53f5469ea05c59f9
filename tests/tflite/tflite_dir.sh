#!/usr/bin/env bash
# Prints the folder of the TFLite test models:
# ${TFHOST_CACHE:-~/.cache/tfhost}/tflite/<key>, where <key> hashes the
# generator (tests/tflite/generate.py), this script, the lock of the `peers`
# environment it runs in (TensorFlow's converter and LiteRT) and the zoo's
# own key (its models are converted too), so the models are regenerated
# exactly when one of those changes. Kept apart from the zoo
# (tests/zoo/zoo_dir.sh), whose key does not move with this one.
#   tests/tflite/tflite_dir.sh            print the folder
#   tests/tflite/tflite_dir.sh --ensure   generate it first if it is not complete
# Generation writes <dir>.partial and renames it, under a lock on <dir>.lock.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

ensure=0
case "${1:-}" in
  "") ;;
  --ensure) ensure=1 ;;
  *) echo "usage: $0 [--ensure]" >&2; exit 2 ;;
esac

lock_file="$root/requirements/peers.txt"
[ -f "$lock_file" ] || { echo "tflite_dir: no Python lock at $lock_file" >&2; exit 2; }
zoo_key="$(basename "$("$root/tests/zoo/zoo_dir.sh")")"
key="$(cd "$root" && { cat tests/tflite/generate.py tests/tflite/tflite_dir.sh requirements/peers.txt
                       echo "$zoo_key"; } | sha256sum | cut -c1-16)"
dir="${TFHOST_CACHE:-$HOME/.cache/tfhost}/tflite/$key"

if [ "$ensure" = 1 ] && [ ! -f "$dir/.complete" ]; then
  mkdir -p "$(dirname "$dir")"
  exec 9>"$dir.lock"
  flock 9
  if [ ! -f "$dir/.complete" ]; then
    rm -rf "$dir.partial" "$dir"
    zoo="$("$root/tests/zoo/zoo_dir.sh" --ensure)"
    echo "tflite_dir: converting the TFLite test models (and the zoo's) into $dir" >&2
    if ! TFHOST_PYTHON_ENV=peers "$root/scripts/py" "$here/generate.py" --out "$dir.partial" --zoo "$zoo" >&2; then
      echo "tflite_dir: generation failed; see the log above (partial output: $dir.partial)" >&2
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
