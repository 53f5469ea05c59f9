#!/usr/bin/env bash
# scripts/prune_cache.sh keeps the most recently used entries of one prefix,
# leaves other prefixes, half-made entries and entries in use alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
check() {  # check PATH present|absent
  if { [ "$2" = present ] && [ ! -d "$1" ]; } || { [ "$2" = absent ] && [ -d "$1" ]; }; then
    echo "FAIL: $1 should be $2"; fail=1
  fi
}
n=0
for e in test-a test-b test-c test-d peers-a; do
  mkdir -p "$tmp/$e"
  touch -d "@$((1700000000 + n))" "$tmp/$e/.used"
  n=$((n + 100))
done
mkdir -p "$tmp/test-e.partial"
# test-a is the oldest but in use: its lock is held while pruning.
exec 7>"$tmp/test-a.lock"
flock 7
"$root/scripts/prune_cache.sh" "$tmp" test- 2 2>/dev/null
exec 7>&-
check "$tmp/test-d" present
check "$tmp/test-c" present
check "$tmp/test-b" absent
check "$tmp/test-a" present
check "$tmp/peers-a" present
check "$tmp/test-e.partial" present
# Without the lock, the oldest goes too.
"$root/scripts/prune_cache.sh" "$tmp" test- 2 2>/dev/null
check "$tmp/test-a" absent
if out="$("$root/scripts/prune_cache.sh" "$tmp" test- two 2>&1)"; then
  echo "FAIL: a KEEP that is not a number must fail"; fail=1
elif [[ "$out" != *"KEEP must be a number, got 'two'"* ]]; then
  echo "FAIL: unexpected message: $out"; fail=1
fi
[ "$fail" = 0 ] && echo "prune_cache: all checks passed"
exit "$fail"
