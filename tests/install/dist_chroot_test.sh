#!/usr/bin/env bash
# The release tarball on a machine where nothing of tfhost's is installed: a bare
# Debian 12 (debootstrap --variant=minbase bookworm; scripts/debian_chroot.sh caches it
# outside the clone). The tarball is unpacked there and dist_checks.sh runs tfhost
# version, demo-models, inspect, run, bench and the bash completion, inside chroot.
#   dist_chroot_test.sh SOURCE_DIR BUILD_DIR DIST_DIR
# The cached tree is never written: each run works on an overlay of it (a copy where
# overlayfs is missing) in a private mount namespace, with /proc and /sys mounted as on
# a real node; all of it goes when the run ends.
# Exit 77 (ctest's SKIP_RETURN_CODE) when it cannot run here, saying why: not root, no
# chroot/unshare, no debootstrap or no network for a first build of the tree.
set -euo pipefail

if [ "${1:-}" = --inside-namespace ]; then
  # Second half, in the private mount namespace: mount, unpack and check.
  lower="$2" work="$3" tarball="$4" checks_dir="$5"
  root="$work/root"
  mkdir -p "$root" "$work/upper" "$work/overlay-work"
  if ! mount -t overlay overlay \
      -o "lowerdir=$lower,upperdir=$work/upper,workdir=$work/overlay-work" "$root" 2>/dev/null; then
    echo "(no overlayfs: copying the tree)"
    cp -a "$lower/." "$root/"
  fi
  mount -t proc proc "$root/proc"
  mount -t sysfs -o ro sysfs "$root/sys" 2>/dev/null || mount --rbind -o ro /sys "$root/sys"
  # debootstrap made the device nodes; where the tree's filesystem will not open
  # them (nodev), the host's /dev stands in.
  ( : >"$root/dev/null" ) 2>/dev/null || mount --rbind /dev "$root/dev"
  mkdir -p "$root/tmp/dist"
  cp "$tarball" "$checks_dir/dist_checks.sh" "$checks_dir/completion_test.sh" "$root/tmp/dist/"
  # A clean environment, as on a node: nothing of the host's PATH or libraries.
  exec chroot "$root" /usr/bin/env -i HOME=/root LC_ALL=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c '
      set -euo pipefail
      # The tree is bare: none of the libraries tfhost links comes from it.
      for lib in libprotobuf libgrpc libdnnl libleveldb libicuuc libcurl libhwloc; do
        if ldconfig -p | grep -q "$lib"; then
          echo "FAIL: the chroot has $lib installed; it is not a bare system"; exit 1
        fi
      done
      cd /tmp/dist
      bash dist_checks.sh "/tmp/dist/$1" "/opt/unpacked here" /tmp/dist/completion_test.sh
    ' dist-check "$(basename "$tarball")"
fi

src="$1" build="$2" dist="$3"
skip() { echo "SKIP: $*"; exit 77; }
start=$SECONDS

[ "$(id -u)" -eq 0 ] || skip "chroot and mounts need root (running as uid $(id -u))"
for tool in chroot unshare mount; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
unshare --mount --propagation private true 2>/dev/null ||
  skip "cannot make a private mount namespace here (unshare --mount failed)"

tarball="$(bash "$src/scripts/make_dist.sh" --build-dir "$build" --out-dir "$dist" --print-path)"
[ -f "$tarball" ] || { echo "FAIL: no $tarball (the install_dist test makes it: make dist)"; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/tfhost-dist-chroot.XXXXXX")"
# The mounts live and die with the namespace; never delete through one that is left.
trap 'grep -qF " $work/" /proc/self/mounts || rm -rf "$work"' EXIT
set +e
lower="$(bash "$src/scripts/debian_chroot.sh" 2>"$work/chroot.log")"
rc=$?
set -e
cat "$work/chroot.log"
case $rc in
  0) ;;
  3) skip "no bare Debian 12 tree to test in: $(tail -n 1 "$work/chroot.log" | sed 's/^debian_chroot: //')" ;;
  *) echo "FAIL: scripts/debian_chroot.sh failed (exit $rc)"; exit 1 ;;
esac
echo "bare Debian 12 tree: $lower ($((SECONDS - start)) s)"

unshare --mount --propagation private \
  bash "${BASH_SOURCE[0]}" --inside-namespace "$lower" "$work" "$tarball" \
  "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
echo "dist_chroot_test: pass in $((SECONDS - start)) s"
