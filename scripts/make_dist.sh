#!/usr/bin/env bash
# The relocatable release tarball, from a built tree (`make dist` builds tfhost, then
# runs this through the CMake target `dist`):
#   OUT/tfhost-<version>-linux-<arch>.tar.gz, unpacking to tfhost-<version>-linux-<arch>/
#     bin/tfhost                  RPATH $ORIGIN/../lib
#     lib/*.so*                   every shared library tfhost needs except glibc's own,
#                                 each with RPATH $ORIGIN
#     share/doc/tfhost/           README.md, docs/
#     share/bash-completion/completions/tfhost
#     share/tfhost/instance_catalog.json   (`tfhost plan`'s catalog)
# bin/ and share/ are what `cmake --install` puts in a prefix (cmake/install.cmake), so
# the tarball and `make install` cannot drift apart. Unpacked anywhere, it runs on an
# x86-64 Linux with glibc at least as new as the one printed here, and nothing else
# installed (tests/install/dist_chroot_test.sh checks that in a bare Debian 12).
#   scripts/make_dist.sh [--build-dir DIR] [--out-dir DIR]   (default build/, dist/)
#   scripts/make_dist.sh --print-path [--build-dir DIR] [--out-dir DIR]
# When nothing that goes into the tarball changed since the last one, it says so and
# leaves the tarball alone.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build"
out="$root/dist"
print_path=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(cd "$2" && pwd)"; shift 2 ;;
    --out-dir) mkdir -p "$2"; out="$(cd "$2" && pwd)"; shift 2 ;;
    --print-path) print_path=1; shift ;;
    *) echo "make_dist: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "make_dist: $*" >&2; exit 1; }

bin="$build/tfhost"
[ -x "$bin" ] || die "no $bin; build it first (make build, or cmake --build $build --target tfhost)"
version="$("$bin" version | awk 'NR == 1 { print $2 }')"
[ -n "$version" ] || die "'$bin version' printed no version"
arch="$(uname -m)"
name="tfhost-$version-linux-$arch"
tarball="$out/$name.tar.gz"
if [ "$print_path" = 1 ]; then
  echo "$tarball"
  exit 0
fi
command -v patchelf >/dev/null || die "patchelf not found (make deps installs it)"

# glibc's own libraries stay out: they belong to the host (and must match its
# ld-linux). Everything else comes along, libstdc++ and libgcc_s included, so the
# tarball runs where none of tfhost's dependencies are installed.
is_glibc() {
  [[ $1 =~ ^(libc|libm|libdl|libpthread|librt|libresolv|libutil|libanl|libmvec|libnsl|libBrokenLocale|libthread_db|libc_malloc_debug|libnss_[a-z0-9]+)\.so(\.|$) ||
     $1 =~ ^ld-linux || $1 =~ ^linux-vdso || $1 =~ ^linux-gate ]]
}

# needed_libs FILE...: "soname path" of every non-glibc library FILE loads, directly
# or not, as ldd resolves it on this machine.
needed_libs() {
  local f out
  for f in "$@"; do
    out="$(ldd "$f")"
    if grep -q "=> not found" <<<"$out"; then
      die "$f needs libraries this machine lacks: $(grep "=> not found" <<<"$out" | tr -s ' \t\n' ' ')"
    fi
    sed -n 's/^[[:space:]]*\([^ ]*\) => \(.*\) (0x[0-9a-f]*)$/\1 \2/p' <<<"$out"
  done | sort -u | while read -r soname path; do
    is_glibc "$soname" || echo "$soname $path"
  done
}

# Libraries tfhost dlopens itself rather than links (src/ops/image/decode_image.cc):
# JPEG and PNG decoding. dlopen from the binary searches its RPATH, so a copy in
# lib/ is found; where the build host lacks one, decoding that format reports it.
# NVML, CUDA and NCCL are never bundled: they come with the node's driver and CUDA.
# The CUDA backend plugin (libtfhost_cuda.so, when the build has one) goes in lib/
# beside these, where tfhost looks for it; it finds the node's CUDA runtime through
# the system's library path, and says why not when there is none (tfhost probe).
dlopened=(libjpeg.so.62 libpng16.so.16)
extra=()
ldconfig="$(command -v ldconfig || echo /sbin/ldconfig)"
for soname in "${dlopened[@]}"; do
  path="$("$ldconfig" -p | awk -v n="$soname" '$1 == n && /x86-64/ && !found { print $NF; found = 1 }')"
  if [ -n "$path" ]; then
    extra+=("$path")
  else
    echo "make_dist: warning: $soname (dlopened by tfhost) is not on this machine; not bundled" >&2
  fi
done

libs="$(needed_libs "$bin" "${extra[@]}")"
for path in "${extra[@]}"; do
  libs+=$'\n'"$(basename "$path") $path"
done
libs="$(sort -u <<<"$libs" | sed '/^$/d')"

# Everything that decides the tarball's contents; the same list as last time means
# the tarball is current.
inputs() {
  echo "script $(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)"
  stat -c '%n %s %Y' "$bin" "$build/cmake_install.cmake" "$root/README.md" \
    "$root/scripts/tfhost-completion.bash" \
    "$root/src/host/data/instance_catalog.json"
  [ -f "$build/libtfhost_cuda.so" ] && stat -c '%n %s %Y' "$build/libtfhost_cuda.so"
  find "$root/docs" -type f -printf '%p %s %T@\n' | sort
  while read -r soname path; do
    echo "$soname $(stat -L -c '%n %s %Y' "$path")"
  done <<<"$libs"
}
[ -f "$build/cmake_install.cmake" ] || die "$build is not a configured CMake build"
mkdir -p "$out" "$build/dist"
manifest="$build/dist/$name.inputs"
exec 9>"$build/dist/.lock"
flock 9
if [ -f "$tarball" ] && [ -f "$manifest" ] && inputs | cmp -s - "$manifest"; then
  echo "make_dist: $tarball is up to date"
  exit 0
fi

stage="$build/dist/$name"
rm -rf "$stage"
cmake --install "$build" --prefix "$stage" >/dev/null
[ -x "$stage/bin/tfhost" ] || die "cmake --install put no bin/tfhost in $stage"
mkdir -p "$stage/lib"
count=0
while read -r soname path; do
  cp -L "$path" "$stage/lib/$soname"
  chmod 0644 "$stage/lib/$soname"
  # $ORIGIN on each library too, or a library with a RUNPATH of its own would look
  # for its dependencies there and in the system's folders only.
  patchelf --force-rpath --set-rpath '$ORIGIN' "$stage/lib/$soname"
  count=$((count + 1))
done <<<"$libs"
# DT_RPATH (--force-rpath), not DT_RUNPATH: it is searched before LD_LIBRARY_PATH,
# so an environment module's older libstdc++ or protobuf on a cluster node cannot
# displace the ones tfhost was built with (LD_PRELOAD still can, for debugging).
patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$stage/bin/tfhost"

# Every library the staged binary loads must now come from lib/.
strays="$(ldd "$stage/bin/tfhost" | sed -n 's/^[[:space:]]*\([^ ]*\) => \(.*\) (0x[0-9a-f]*)$/\1 \2/p' | while read -r soname path; do
  is_glibc "$soname" && continue
  case "$(realpath -m "$path")" in "$stage/lib/"*) ;; *) echo "$soname => $path" ;; esac
done)"
[ -z "$strays" ] || die "the staged binary still loads libraries from outside lib/: $strays"
plugin="$build/libtfhost_cuda.so"
if [ -f "$plugin" ]; then
  cp -L "$plugin" "$stage/lib/libtfhost_cuda.so"
  chmod 0644 "$stage/lib/libtfhost_cuda.so"
  count=$((count + 1))
fi
"$stage/bin/tfhost" version >/dev/null || die "the staged binary does not run"

# The newest glibc symbol version anything needs: the oldest glibc it runs on.
glibc="$(objdump -T "$stage/bin/tfhost" "$stage"/lib/* 2>/dev/null |
  grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)"

# Owners, order and times fixed: the same inputs give the same bytes.
tmp="$tarball.tmp.$$"
trap 'rm -f "$tmp"' EXIT
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(stat -c %Y "$bin")" \
  -C "$build/dist" -cf - "$name" | gzip -n -6 >"$tmp"
mv "$tmp" "$tarball"
inputs >"$manifest"
rm -rf "$stage"
echo "make_dist: $tarball ($(du -h "$tarball" | cut -f1); bin/tfhost + $count libraries;" \
  "runs on $arch Linux with glibc >= ${glibc:-?})"
