#!/usr/bin/env bash
# A bare Debian 12 root filesystem for testing the release tarball where nothing of
# tfhost's is installed: `debootstrap --variant=minbase bookworm` (essential packages
# and apt only; no compilers, no -dev packages, none of the libraries tfhost links).
# Like the Python environment (scripts/python_env.sh) it lives in a cache outside the
# clone, named by a hash of the debootstrap command, so it is downloaded once per
# machine, not once per test run:
#   ${TFHOST_CACHE:-~/.cache/tfhost}/chroot/bookworm-minbase-<hash>
#   scripts/debian_chroot.sh     ensures it exists, prints its directory
# Treat it as read-only: tests mount an overlay on it (tests/install/dist_chroot_test.sh).
# Exit status: 0 printed; 3 it cannot be made on this machine (not root, no debootstrap,
# the mirror unreachable), with the reason on stderr; anything else: it failed.
# Environment: TFHOST_DEBOOTSTRAP (the debootstrap to run; default: from PATH),
# TFHOST_DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail
unavailable() { echo "debian_chroot: $*" >&2; exit 3; }

suite=bookworm
variant=minbase
mirror="${TFHOST_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
# The command minus its target folder (and minus the binary's path, so that
# TFHOST_DEBOOTSTRAP does not change the key): what decides the tree's contents.
args=(--variant="$variant" --arch="$arch" "$suite" TARGET "$mirror")
key="$(printf '%s\n' debootstrap "${args[@]}" | sha256sum | cut -c1-16)"
cache="${TFHOST_CACHE:-$HOME/.cache/tfhost}"
dir="$cache/chroot/$suite-$variant-$key"

if [ -f "$dir/.complete" ]; then
  echo "$dir"
  exit 0
fi
[ "$(id -u)" -eq 0 ] || unavailable "debootstrap needs root (running as uid $(id -u))"
debootstrap="${TFHOST_DEBOOTSTRAP:-debootstrap}"
command -v "$debootstrap" >/dev/null 2>&1 ||
  unavailable "'$debootstrap' not found (make deps installs debootstrap)"
command -v wget >/dev/null 2>&1 || unavailable "debootstrap needs wget, which is not installed"
if ! wget -q -T 20 -t 2 -O /dev/null "$mirror/dists/$suite/Release"; then
  unavailable "cannot reach the Debian mirror $mirror (no network?); set TFHOST_DEBIAN_MIRROR for another"
fi

mkdir -p "$cache/chroot"
# Two test runs (or two clones) wait for each other; the second finds it made.
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.complete" ]; then
  # The .complete mark, written last, tells a finished tree from an interrupted one.
  rm -rf "$dir"
  echo "debian_chroot: creating $dir ($debootstrap ${args[*]/TARGET/$dir})" >&2
  log="$dir.log"
  if ! "$debootstrap" "${args[@]/TARGET/$dir}" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "debian_chroot: debootstrap failed; whole log in $log" >&2
    exit 1
  fi
  # apt's caches: nothing the tests use, and most of the tree's size.
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  touch "$dir/.complete"
fi
echo "$dir"
