#!/usr/bin/env bash
# tfhost's S3 client (SigV4 over libcurl, ListObjectsV2, GET) against s3rver,
# an S3-compatible server written by others. s3_cache_test's own server checks
# signatures and failures that s3rver cannot (s3rver 3.7.1 accepts a V4
# request signed with the wrong secret); this test checks that tfhost and an
# independent implementation agree on the protocol. Objects are uploaded with
# curl's own SigV4 signer, not tfhost's.
#
# Usage: s3rver_interop_test.sh TFHOST_BINARY   (exit 77 = skipped, says why)
set -euo pipefail

tfhost="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
fixtures="${TFHOST_FIXTURES:-$root/../shared/fixtures}"
shards="$fixtures/data/tfx_chicago_taxi/Split-train"
s3rver="$here/s3rver/node_modules/s3rver/bin/s3rver.js"

skip() { echo "SKIP: $*"; exit 77; }
[ -f "$s3rver" ] || skip "s3rver is not installed ($here/s3rver: npm ci, which scripts/install_deps.sh runs when npm is present)"
command -v node >/dev/null || skip "node is not installed"
[ -d "$shards" ] || skip "fixture shards not found at $shards (set TFHOST_FIXTURES)"

work="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
node "$s3rver" -d "$work/store" -a 127.0.0.1 -p "$port" --silent --configure-bucket shards >"$work/s3rver.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/s3rver.log"; fail "s3rver exited at start"; }
  sleep 0.1
done

put() {  # FILE KEY
  curl -sf -o /dev/null -H "x-amz-content-sha256: $(sha256sum "$1" | cut -d' ' -f1)" \
    --aws-sigv4 "aws:amz:us-east-1:s3" --user S3RVER:S3RVER -T "$1" "http://127.0.0.1:$port/shards/$2" \
    || fail "upload of $1 to s3rver as $2"
}
a="$shards/data_tfrecord-00000-of-00012.gz"
b="$shards/data_tfrecord-00001-of-00012.gz"
put "$a" train/part-00000-of-00002.gz
put "$b" train/part-00001-of-00002.gz
head -c 4096 /dev/urandom >"$work/garbage.tfrecord"
put "$work/garbage.tfrecord" bad/part-00000-of-00001.tfrecord

export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
cache="$work/cache"

echo "== a prefix is listed, downloaded and verified"
out="$("$tfhost" data cache warm s3://shards/train/ --cache-dir "$cache" 2>&1)" || fail "warm failed: $out"
echo "$out"
grep -q "2 of 2 object(s) warmed" <<<"$out" || fail "expected both objects warmed"
for pair in "part-00000-of-00002.gz:$a" "part-00001-of-00002.gz:$b"; do
  name="${pair%%:*}" fixture="${pair#*:}"
  cached=("$cache"/data/*-"$name")
  [ -f "${cached[0]}" ] || fail "no cached file for $name in $cache/data"
  cmp -s "${cached[0]}" "$fixture" || fail "cached $name differs from the uploaded $fixture"
done

echo "== a second warm downloads nothing"
out="$("$tfhost" data cache warm s3://shards/train/ --cache-dir "$cache" 2>&1)" || fail "second warm failed: $out"
echo "$out"
grep -q "(2 already cached" <<<"$out" || fail "expected both objects already cached"

echo "== an object that is not a valid TFRecord file is refused and not cached"
if out="$("$tfhost" data cache warm s3://shards/bad/part-00000-of-00001.tfrecord --cache-dir "$cache" 2>&1)"; then
  fail "warm of a garbage object succeeded: $out"
fi
echo "$out"
grep -q "part-00000-of-00001.tfrecord" <<<"$out" || fail "the error does not name the object"
ls "$cache"/data/*-part-00000-of-00001.tfrecord >/dev/null 2>&1 && fail "the garbage object was cached"
echo "PASS"
