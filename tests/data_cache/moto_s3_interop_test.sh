#!/usr/bin/env bash
# tfhost's S3 client (SigV4 over libcurl, ListObjectsV2, GET) against moto's
# S3 server, an S3 implementation written by others, with objects uploaded by
# boto3 (AWS's own Python SDK), so neither side of the upload is tfhost's.
# s3_cache_test's own server checks signatures and failures that moto does
# not model (moto accepts any credentials); this test checks that tfhost and
# independent implementations agree on the protocol. The shards are written by
# tfhost's CSV converter and their bytes compared after the round trip.
#
# Usage: moto_s3_interop_test.sh TFHOST_BINARY   (exit 77 = skipped, says why)
set -euo pipefail

tfhost="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

skip() { echo "SKIP: $*"; exit 77; }
venv="$("$root/scripts/python_env.sh" test)" || skip "the project's Python environment could not be made (make deps)"
[ -x "$venv/bin/moto_server" ] || skip "moto_server missing from $venv (requirements/test.txt pins moto[s3,server])"

work="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Two gzip shards from a CSV tfhost converts itself.
{
  echo "trip_id,fare,company"
  for i in $(seq 1 400); do echo "$i,$((i % 37)).25,company_$((i % 5))"; done
} >"$work/trips.csv"
mkdir -p "$work/shards"
"$tfhost" data convert "$work/trips.csv" --out "$work/shards/trips" --shards 2 --compression gzip >/dev/null \
  || fail "tfhost data convert could not write the shards"
shards=("$work"/shards/trips-*)
[ ${#shards[@]} -eq 2 ] || fail "expected 2 shards, got: ${shards[*]}"
a="${shards[0]}"
b="${shards[1]}"

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$work/moto.log" 2>&1 &
pid=$!
for _ in $(seq 200); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/moto.log"; fail "moto_server exited at start"; }
  sleep 0.1
done

export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
head -c 4096 /dev/urandom >"$work/garbage.tfrecord"
"$venv/bin/python" - "$a" "$b" "$work/garbage.tfrecord" <<'PY' || fail "boto3 could not upload the objects"
import sys, boto3
s3 = boto3.client("s3")
s3.create_bucket(Bucket="shards")
s3.upload_file(sys.argv[1], "shards", "train/part-00000-of-00002.gz")
s3.upload_file(sys.argv[2], "shards", "train/part-00001-of-00002.gz")
s3.upload_file(sys.argv[3], "shards", "bad/part-00000-of-00001.tfrecord")
PY
cache="$work/cache"

echo "== a prefix is listed, downloaded and verified"
out="$("$tfhost" data cache warm s3://shards/train/ --cache-dir "$cache" 2>&1)" || fail "warm failed: $out"
echo "$out"
grep -q "2 of 2 object(s) warmed" <<<"$out" || fail "expected both objects warmed"
for pair in "part-00000-of-00002.gz:$a" "part-00001-of-00002.gz:$b"; do
  name="${pair%%:*}" uploaded="${pair#*:}"
  cached=("$cache"/data/*-"$name")
  [ -f "${cached[0]}" ] || fail "no cached file for $name in $cache/data"
  cmp -s "${cached[0]}" "$uploaded" || fail "cached $name differs from the uploaded $uploaded"
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
