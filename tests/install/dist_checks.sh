#!/usr/bin/env bash
# What a user does with the release tarball, checked step by step:
#   dist_checks.sh TARBALL DIR [COMPLETION_TEST]
# unpacks TARBALL into DIR (a path with a space in it, to catch quoting and
# relocation mistakes), puts its bin/ on PATH, and runs tfhost version, demo-models,
# inspect, run and bench there; with COMPLETION_TEST (completion_test.sh), also the
# bash completion the tarball carries. dist_chroot_test.sh runs it inside a bare
# Debian 12; it runs anywhere else too. Needs only coreutils, tar, gzip, grep, bash.
set -euo pipefail
tarball="$1"
dir="$2"
completion_test="${3:-}"
name="$(basename "$tarball" .tar.gz)"              # tfhost-<version>-linux-<arch>
version="${name#tfhost-}"
version="${version%-linux-*}"
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "--- $*"; }

step "unpack into $dir"
mkdir -p "$dir"
tar -xzf "$tarball" -C "$dir"
top="$dir/$name"
[ -x "$top/bin/tfhost" ] || fail "no bin/tfhost in $tarball"
export PATH="$top/bin:$PATH"
[ "$(command -v tfhost)" = "$top/bin/tfhost" ] || fail "tfhost on PATH is $(command -v tfhost)"

step "every library comes from the tarball's lib/ or is glibc's"
# ldd is glibc's (libc-bin); a missing one shows as "not found".
libs="$(ldd "$top/bin/tfhost")"
if grep -q "not found" <<<"$libs"; then
  echo "$libs"
  fail "tfhost needs libraries the tarball lacks"
fi
outside="$(sed -n 's/^[[:space:]]*\([^ ]*\) => \(.*\) (0x[0-9a-f]*)$/\1 \2/p' <<<"$libs" |
  grep -Ev '^(libc|libm|libdl|libpthread|librt|libresolv|libutil|libmvec|ld-linux[^ ]*)\.so' |
  grep -Ev '^ld-linux' |
  grep -Fv " $top/bin/../lib/" || true)"
[ -z "$outside" ] || fail "libraries loaded from outside the tarball: $outside"
echo "$(grep -c "$top/bin/../lib/" <<<"$libs") libraries from lib/"

step "LD_LIBRARY_PATH cannot displace the bundled libraries"
# A node's environment modules put other builds of the same libraries first; here a
# library of the right name and the wrong contents.
fake="$(mktemp -d)"
cp "$top/lib/libz.so.1" "$fake/libprotobuf.so.32"
cp "$top/lib/libz.so.1" "$fake/libstdc++.so.6"
LD_LIBRARY_PATH="$fake" tfhost version >/dev/null || fail "tfhost breaks with LD_LIBRARY_PATH=$fake"
rm -rf "$fake"

step "tfhost version"
out="$(tfhost version)"
echo "$out"
[ "$(head -n 1 <<<"$out")" = "tfhost $version" ] || fail "expected 'tfhost $version' first"

step "tfhost demo-models"
models="$(mktemp -d)"
tfhost demo-models "$models"
for m in half_plus_two mlp cnn; do
  [ -f "$models/$m/1/saved_model.pb" ] || fail "demo-models wrote no $m/1/saved_model.pb"
done

step "tfhost inspect --check"
out="$(tfhost inspect --check "$models/half_plus_two")"
echo "$out"
grep -q "serving_default" <<<"$out" || fail "inspect shows no serving_default signature"
tfhost inspect --check "$models/cnn" >/dev/null || fail "inspect --check cnn: ops without kernels"

step "tfhost run"
out="$(tfhost run "$models/half_plus_two" --input 'x=[[1.0],[2.0],[5.0]]')"
echo "$out"
grep -qF 'y: float32[3,1] {2.5, 3, 4.5}' <<<"$out" || fail "half_plus_two gave the wrong answer"

step "tfhost bench (oneDNN, OpenMP)"
tfhost bench "$models/cnn" --batch 2 --runs 3 --warmup 1 || fail "bench on cnn failed"

step "tfhost plan: the catalog in share/tfhost/"
out="$(tfhost plan "$models/cnn" --qps 100 --calibration-runs 5)" || fail "plan on cnn failed"
grep -q "^catalog: $top/share/tfhost/instance_catalog.json$" <<<"$out" ||
  fail "plan did not read the tarball's catalog: $(grep '^catalog:' <<<"$out")"

if [ -f "$top/lib/libtfhost_cuda.so" ]; then
  # The tarball's CUDA plugin loads the node's CUDA runtime, never a bundled
  # one: on a node without CUDA (this chroot) probe says so, and tfhost runs.
  step "tfhost probe: the CUDA plugin beside the binary"
  out="$(tfhost probe --json)"
  grep -q '"path": "'"$top"'/lib/libtfhost_cuda.so"' <<<"$out" || fail "probe did not find lib/libtfhost_cuda.so"
  grep -Eq '"detail": "(cannot load it: libcudart|no usable GPU|added cuda:)' <<<"$out" ||
    fail "probe gave no reason for the CUDA plugin: $(grep -A3 cuda_plugin <<<"$out")"
  tfhost run "$models/half_plus_two" --input 'x=[[1.0]]' --device auto >/dev/null || fail "--device auto failed"
fi

if [ -n "$completion_test" ]; then
  step "bash completion from share/bash-completion/completions/tfhost"
  if ! out="$(bash "$completion_test" "$top/bin/tfhost" "$top/share/bash-completion/completions/tfhost")"; then
    echo "$out"
    fail "the completion cases failed"
  fi
  tail -n 1 <<<"$out"
fi
rm -rf "$models"
echo "dist checks: all pass ($name)"
