#!/usr/bin/env bash
# Runs every fuzzer briefly, seeded from the fixtures when present.
# Usage: fuzz/smoke.sh BUILD_DIR [SECONDS_PER_FUZZER]
set -euo pipefail
build_dir=${1:?build dir}
seconds=${2:-15}
fixtures=${TFHOST_FIXTURES:-$(cd "$(dirname "$0")/.." && pwd)/../shared/fixtures}

seeds_for() {
  case "$1" in
    saved_model_fuzz) find "$fixtures/models/tfserving" -name saved_model.pb 2>/dev/null ;;
    graphdef_fuzz) find "$fixtures/models/tfserving" -name saved_model.pb 2>/dev/null | head -3 ;;
    bundle_index_fuzz) find "$fixtures/models/tfserving" -name variables.index 2>/dev/null ;;
    model_json_fuzz) find "$fixtures/models/tfjs" -name model.json 2>/dev/null | head -2 ;;
    npy_fuzz) ;;
  esac
}

status=0
for fuzzer in "$build_dir"/fuzz/*_fuzz; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  corpus=$(mktemp -d)
  while IFS= read -r seed; do
    [ -n "$seed" ] && cp "$seed" "$corpus/$(echo "$seed" | md5sum | cut -c1-12)"
  done < <(seeds_for "$name")
  echo "fuzz smoke: $name for ${seconds}s ($(ls "$corpus" | wc -l) seeds)"
  if ! "$fuzzer" -max_total_time="$seconds" -max_len=200000 -rss_limit_mb=2048 \
       -print_final_stats=0 "$corpus" > "$corpus.log" 2>&1; then
    echo "fuzz smoke: $name FAILED"; tail -40 "$corpus.log"; status=1
  fi
  rm -rf "$corpus" "$corpus.log"
done
exit $status
