#!/usr/bin/env bash
# Soak of `tfhost serve` with faults (bench/soak/soak.py says what it does):
# mixed v1/v2 REST and gRPC load on four models for DURATION seconds, a
# reload every 30 s, a corrupt version dropped in, clients that disconnect
# mid-request, and SIGTERM under load at the end. Prints a markdown report and
# writes soak.json, soak.md and tfhost.log to OUT_DIR.
#
#   bench/soak/run.sh [TFHOST_BINARY]
#   env: DURATION (1800 s; 60-120 makes a smoke), WARMUP (120 s, at most a
#        third of DURATION), RATE (200 req/s in all), WORKERS (4 processes),
#        RELOAD_EVERY (30 s), DISCONNECT_EVERY (0.5 s), SHUTDOWN_MS (10000,
#        tfhost --shutdown_timeout_ms), RSS_LIMIT (0.05), OUT_DIR (a new
#        /tmp/tfhost_soak_out.* folder)
# Fails (exit 1) on any unexpected error, RSS growth >= RSS_LIMIT after
# warm-up, or a drain that does not finish; the server is always stopped.
# The binary is copied first, so a rebuild during the run does not change it.
# Python: the project's locked test environment (scripts/py; grpcio).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TFHOST_SRC="${1:-${TFHOST:-$ROOT/build/tfhost}}"
[ -x "$TFHOST_SRC" ] || { echo "soak: tfhost binary not found at $TFHOST_SRC" >&2; exit 1; }
DURATION="${DURATION:-1800}"
WARMUP="${WARMUP:-$(python3 -c "print(min(120, int($DURATION) // 3))")}"
BIN="$(mktemp /tmp/tfhost_soak_bin.XXXXXX)"
trap 'rm -f "$BIN"' EXIT
cp "$TFHOST_SRC" "$BIN"
chmod 755 "$BIN"
# A hard stop well past the planned end, in case the driver itself hangs.
TFHOST="$BIN" DURATION="$DURATION" WARMUP="$WARMUP" \
  timeout --kill-after=30 "$(( DURATION + 240 ))" "$ROOT/scripts/py" "$ROOT/bench/soak/soak.py"
