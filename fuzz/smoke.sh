#!/usr/bin/env bash
# Runs every fuzzer briefly, seeded from the fixtures when present.
# Usage: fuzz/smoke.sh BUILD_DIR [SECONDS_PER_FUZZER [FUZZER...]]
# Naming fuzzers runs only those. With TFHOST_FUZZ_CORPUS=DIR each fuzzer's
# corpus is kept in DIR/<fuzzer> and grows across runs (for long runs);
# otherwise it lives in a temporary folder.
# A crash, leak, ASan/UBSan report, slow input (-timeout) or memory blow-up
# (-rss_limit_mb) fails the run and prints the fuzzer's log; the input that
# caused it is kept in the current directory (crash-*, timeout-*, oom-*).
set -euo pipefail
build_dir=${1:?build dir}
seconds=${2:-15}
shift $(( $# < 2 ? $# : 2 ))
only=" $* "
fixtures=${TFHOST_FIXTURES:-$(cd "$(dirname "$0")/.." && pwd)/../shared/fixtures}
# UBSan reports are findings too: stop at the first one (it recovers by
# default), except the third-party ones listed in ubsan_suppressions.txt.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$(cd "$(dirname "$0")" && pwd)/ubsan_suppressions.txt${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# signature_fuzz also runs the generated zoo's models when it has been made
# (the test suite makes it); without it, only the demo models.
if [ -z "${TFHOST_FUZZ_ZOO:-}" ]; then
  zoo=$(bash "$(dirname "$0")/../tests/zoo/zoo_dir.sh" 2>/dev/null || true)
  if [ -n "$zoo" ] && [ -f "$zoo/.complete" ]; then export TFHOST_FUZZ_ZOO=$zoo; fi
fi
# Must match kSplitMarker in fuzz/fuzz_file_util.h.
split_marker=$'\n--tfhost-fuzz-split--\n'

# A .npy file: npy_seed FILE DESCR SHAPE DATA_BYTES (DATA_BYTES as printf %b escapes).
npy_seed() {
  local header="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  local len=$(( ${#header} + 1 ))
  { printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))"
    printf '%s\n' "$header"
    printf '%b' "$4"; } > "$1"
}

# Fixture files named $1 under models/tfserving, sorted; none if absent.
tfserving_files() { find "$fixtures/models/tfserving" -name "$1" 2>/dev/null | sort || true; }

# Writes the seeds of fuzzer $1 into folder $2.
make_seeds() {
  local name=$1 corpus=$2 f
  case "$name" in
    saved_model_fuzz)
      tfserving_files saved_model.pb ;;
    graphdef_fuzz)
      tfserving_files saved_model.pb | head -3 ;;
    model_json_fuzz)
      # The two smallest (the harness synthesizes weights of the right size).
      for f in emotion blazeface; do echo "$fixtures/models/tfjs/$f/model.json"; done ;;
    *) ;;
  esac | while IFS= read -r f; do
    if [ -f "$f" ]; then cp -f "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-12)"; fi
  done
  case "$name" in
    bundle_index_fuzz)
      # index + marker + its only data shard.
      tfserving_files variables.index | while IFS= read -r f; do
        local data=${f%.index}.data-00000-of-00001
        { cat "$f"; printf '%s' "$split_marker"; if [ -f "$data" ]; then cat "$data"; fi; } \
          > "$corpus/$(echo "$f" | md5sum | cut -c1-12)"
      done
      # Structured indexes (see bundle_index_fuzz.cc): one record, key "a", holding a
      # BundleEntryProto: float [2] at 0 size 8; bool [3] size 3; string [1] size 7 (Snappy index).
      printf 'E\x01\x0a\x00a\x08\x01\x12\x04\x12\x02\x08\x02\x28\x08%s\x00\x00\x80\x3f\x00\x00\x00\x40' \
        "$split_marker" > "$corpus/entry-f32"
      printf 'E\x01\x0a\x00a\x08\x0a\x12\x04\x12\x02\x08\x03\x28\x03%s\x01\x00\x02' \
        "$split_marker" > "$corpus/entry-bool"
      printf 'Z\x01\x0a\x00a\x08\x07\x12\x04\x12\x02\x08\x01\x28\x07%s\x02\x00\x00\x00\x00hi' \
        "$split_marker" > "$corpus/entry-string" ;;
    model_json_fuzz)
      # A tiny model (fast to mutate): y = x + w, w a uint8-quantized weight, and
      # a string weight, with its shard after the split marker.
      { printf '%s' '{"format":"graph-model","modelTopology":{"node":[{"name":"x","op":"Placeholder",'\
'"attr":{"dtype":{"type":"DT_FLOAT"},"shape":{"shape":{"dim":[{"size":"2"}]}}}},{"name":"w","op":"Const",'\
'"attr":{"dtype":{"type":"DT_FLOAT"},"value":{"tensor":{"dtype":"DT_FLOAT","tensorShape":{"dim":[{"size":"2"}]}}}}},'\
'{"name":"s","op":"Const","attr":{"dtype":{"type":"DT_STRING"},"value":{"tensor":{"dtype":"DT_STRING",'\
'"tensorShape":{"dim":[{"size":"1"}]}}}}},{"name":"y","op":"AddV2","input":["x","w"],"attr":{"T":{"type":"DT_FLOAT"}}}],'\
'"versions":{"producer":1}},"signature":{"inputs":{"x:0":{"name":"x:0","dtype":"DT_FLOAT"}},'\
'"outputs":{"y:0":{"name":"y:0","dtype":"DT_FLOAT"}}},"weightsManifest":[{"paths":["w.bin"],"weights":['\
'{"name":"w","shape":[2],"dtype":"float32","quantization":{"dtype":"uint8","scale":0.5,"min":-1}},'\
'{"name":"s","shape":[1],"dtype":"string"}]}]}'
        printf '%s\x01\x02\x02\x00\x00\x00hi' "$split_marker"; } > "$corpus/tiny" ;;
    server_request_fuzz)
      # The first byte picks the way in (see server_request_fuzz.cc): 0 the
      # REST handler, 1 the HTTP wire, 2 gRPC (then a method byte).
      printf '\x00POST /v1/models/half_plus_two:predict\n{"instances": [[1.0], [2.0]]}' > "$corpus/predict-rows"
      printf '\x00POST /v1/models/half_plus_two/versions/1:predict\n{"inputs": {"x": [[1.0]]}}' > "$corpus/predict-columns"
      printf '\x00POST /v1/models/half_plus_two:regress\n{"examples": [{"x": 1.0}], "context": {"x": 2.0}}' > "$corpus/regress"
      printf '\x00POST /v1/models/mlp:classify\n{"signature_name": "classify", "examples": [{"x": [1, 2]}]}' > "$corpus/classify"
      printf '\x00GET /v1/models/half_plus_two/metadata\n' > "$corpus/metadata"
      printf '\x00GET /v1/models/half_plus_two/labels/stable\n' > "$corpus/status-label"
      printf '\x00{"instances": [{"b64": "AAAA"}, NaN, Infinity]}' > "$corpus/body-only"
      printf '\x00POST /v2/models/half_plus_two/infer\n{"inputs": [{"name": "x", "shape": [2, 1], "datatype": "FP32", "data": [1, 2]}]}' > "$corpus/v2-json"
      printf '\x00GET /v2/models/mlp/versions/1\n' > "$corpus/v2-metadata"
      local v2_header='{"inputs": [{"name": "x", "shape": [1, 1], "datatype": "FP32", "parameters": {"binary_data_size": 4}}], "outputs": [{"name": "y", "parameters": {"binary_data": true}}]}'
      printf '\x00POST /v2/models/half_plus_two/infer\nInference-Header-Content-Length: %s\nContent-Type: application/octet-stream\n\n%s\x00\x00\x80\x3f' \
        "${#v2_header}" "$v2_header" > "$corpus/v2-binary"
      local v1_body='{"instances": [1.0, 2.0]}'
      printf '\x01POST /v1/models/half_plus_two:predict HTTP/1.1\r\nHost: fuzz\r\nContent-Length: %s\r\n\r\n%s' \
        "${#v1_body}" "$v1_body" > "$corpus/wire-predict"
      printf '\x01POST /v2/models/half_plus_two/infer HTTP/1.1\r\nHost: fuzz\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"inp\r\n0\r\n\r\nGET /v2/health/ready HTTP/1.1\r\n\r\n' > "$corpus/wire-chunked-pipelined"
      # gRPC, hand-encoded: Predict of half_plus_two with x = [1.0], and the
      # same as a v2 ModelInfer; GetModelMetadata; ServerLive.
      printf '\x02\x00\x0a\x0f\x0a\x0dhalf_plus_two\x12\x13\x0a\x01x\x12\x0e\x08\x01\x12\x04\x12\x02\x08\x01\x2a\x04\x00\x00\x80\x3f' > "$corpus/grpc-predict"
      printf '\x02\x0b\x0a\x0dhalf_plus_two\x2a\x15\x0a\x01x\x12\x04FP32\x1a\x02\x01\x01\x2a\x06\x32\x04\x00\x00\x80\x3f' > "$corpus/grpc-model-infer"
      printf '\x02\x04\x0a\x05\x0a\x03mlp\x12\x0dsignature_def' > "$corpus/grpc-metadata"
      printf '\x02\x06' > "$corpus/grpc-live" ;;
    npy_fuzz)
      npy_seed "$corpus/f4" '<f4' '(2, 1)' '\x00\x00\x80\x3f\x00\x00\x00\x40'
      npy_seed "$corpus/i8" '<i8' '(1,)' '\x07\x00\x00\x00\x00\x00\x00\x00'
      npy_seed "$corpus/b1" '|b1' '(3,)' '\x01\x00\x01'
      npy_seed "$corpus/s3" '|S3' '(2,)' 'ab\x00xyz'
      npy_seed "$corpus/scalar" '<u2' '()' '\x05\x00'
      npy_seed "$corpus/empty" '<f8' '(0, 4)' '' ;;
  esac
}

status=0
for fuzzer in "$build_dir"/fuzz/*_fuzz; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  if [ -n "${TFHOST_FUZZ_CORPUS:-}" ]; then
    corpus=$TFHOST_FUZZ_CORPUS/$name
    mkdir -p "$corpus"
  else
    corpus=$(mktemp -d)
  fi
  log=$(mktemp)
  make_seeds "$name" "$corpus"
  echo "fuzz smoke: $name for ${seconds}s ($(ls "$corpus" | wc -l) inputs in the corpus)"
  if ! "$fuzzer" -max_total_time="$seconds" -max_len=200000 -rss_limit_mb=2048 -timeout=20 \
       -print_final_stats=0 "$corpus" > "$log" 2>&1; then
    echo "fuzz smoke: $name FAILED"; tail -40 "$log"; status=1
  fi
  rm -f "$log"
  [ -n "${TFHOST_FUZZ_CORPUS:-}" ] || rm -rf "$corpus"
done
exit $status
