#!/usr/bin/env bash
# Keeps the KEEP most recently used entries of one kind in a cache folder and
# removes the others, so that caches keyed by content (the model zoo, the
# Python environments) do not pile up a new copy each time their generator or
# lock changes.
#   scripts/prune_cache.sh DIR PREFIX KEEP
# An entry is a folder DIR/PREFIX<key> with its lock file DIR/PREFIX<key>.lock;
# its last use is the time of its .used file (its own time when it has none).
# An entry whose lock another process holds is in use and never removed;
# half-made ones (*.partial) belong to whoever makes them.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 DIR PREFIX KEEP" >&2; exit 2; }
dir="$1" prefix="$2" keep="$3"
[[ "$keep" =~ ^[0-9]+$ ]] || { echo "prune_cache: KEEP must be a number, got '$keep'" >&2; exit 2; }
[ -d "$dir" ] || exit 0
entries=()
while IFS= read -r -d '' e; do
  case "$e" in *.partial) continue ;; esac
  used="$e/.used"
  [ -e "$used" ] || used="$e"
  entries+=("$(stat -c %Y "$used") $e")
done < <(find "$dir" -mindepth 1 -maxdepth 1 -type d -name "$prefix*" -print0)
[ ${#entries[@]} -gt "$keep" ] || exit 0
printf '%s\n' "${entries[@]}" | sort -rn | tail -n +"$((keep + 1))" | while read -r _ e; do
  exec 8>"$e.lock"
  if flock -n 8; then
    rm -rf "$e"
    rm -f "$e.lock"
    echo "prune_cache: removed $e (not used recently)" >&2
  fi
  exec 8>&-
done
