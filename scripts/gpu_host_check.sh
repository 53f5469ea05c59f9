#!/usr/bin/env bash
# The host-intelligence check a session runs once on a GPU machine (issue 7):
# tfhost probe, doctor, monitor and advise for real, next to what NVIDIA's own
# tools and hwloc say about the same machine, so that the output can be kept
# in docs/ and the recordings become test data (src/host/testdata/).
#
#   scripts/gpu_host_check.sh [TFHOST] [OUTDIR]
#
# TFHOST defaults to build/tfhost (build it first, or carry the build folder
# to the machine); OUTDIR defaults to $OUT (the device tool's result folder)
# or ./gpu_host_check. Nothing here needs the network. Every step's exit
# status is kept in OUTDIR/status.txt; a failing step never stops the rest.
set -uo pipefail

TFHOST="${1:-build/tfhost}"
OUTDIR="${2:-${OUT:-gpu_host_check}}"
mkdir -p "$OUTDIR"
status="$OUTDIR/status.txt"
: > "$status"

step() {  # step NAME COMMAND... : runs with a time limit, output to OUTDIR/NAME
  local name="$1"
  shift
  timeout 120 "$@" > "$OUTDIR/$name" 2>&1
  echo "$name: exit $?" >> "$status"
}

[[ -x "$TFHOST" ]] || { echo "no tfhost binary at $TFHOST" | tee -a "$status"; exit 2; }

# What the vendors' tools say (the reference the tfhost output is compared with).
have_smi=false
if command -v nvidia-smi > /dev/null; then
  have_smi=true
  step nvidia-smi.txt nvidia-smi
  step nvidia-smi-q.xml nvidia-smi -q -x
  step nvidia-smi-topo.txt nvidia-smi topo -m
  step nvidia-smi-nvlink.txt nvidia-smi nvlink -s
else
  echo "nvidia-smi: not installed (no NVIDIA driver here)" >> "$status"
fi
if command -v lstopo-no-graphics > /dev/null; then
  step hwloc.xml lstopo-no-graphics --of xml
fi

# tfhost itself.
step probe.txt "$TFHOST" probe
step probe.json "$TFHOST" probe --json
step doctor-train.txt "$TFHOST" doctor --for train
step doctor-serve.json "$TFHOST" doctor --for serve --json
step monitor-once.txt "$TFHOST" monitor --once
step monitor.jsonl "$TFHOST" monitor --interval 1 --count 10 --json --record "$OUTDIR/recording.jsonl"
step advise.txt "$TFHOST" advise "$OUTDIR/recording.jsonl" --html "$OUTDIR/advise.html"

# The same probe fed the recordings instead of NVML and hwloc, so a test can
# replay this machine later and must get the same answers.
if $have_smi && [[ -s "$OUTDIR/nvidia-smi-q.xml" ]]; then
  replay=(--json --nvml-xml "$OUTDIR/nvidia-smi-q.xml")
  [[ -s "$OUTDIR/hwloc.xml" ]] && replay+=(--hwloc-xml "$OUTDIR/hwloc.xml")
  step probe-from-recordings.json "$TFHOST" probe "${replay[@]}"
fi

# The topology matrix tfhost computes vs nvidia-smi's, cell by cell: tfhost's
# JSON cells against the rows of `nvidia-smi topo -m` (GPU rows only).
python3 - "$OUTDIR" >> "$status" 2>&1 <<'EOF'
import json, sys, os
out = sys.argv[1]
try:
    facts = json.load(open(os.path.join(out, "probe.json")))
    topo = open(os.path.join(out, "nvidia-smi-topo.txt")).read().splitlines()
except Exception as e:
    print(f"topology comparison skipped: {e}")
    sys.exit(0)
labels = facts.get("topology", {}).get("labels", [])
cells = facts.get("topology", {}).get("cells", [])
rows = {}
for line in topo:
    parts = line.split()
    if parts and parts[0].startswith("GPU") and parts[0][3:].isdigit():
        rows[parts[0]] = parts[1:]
mismatches = 0
for i, a in enumerate(labels):
    for j, b in enumerate(labels):
        if a in rows and b.startswith("GPU") and b[3:].isdigit():
            k = int(b[3:])
            want = rows[a][k] if k < len(rows[a]) else "?"
            if cells[i][j] != want:
                mismatches += 1
                print(f"topology {a}-{b}: tfhost {cells[i][j]}, nvidia-smi {want}")
print(f"topology comparison: {mismatches} mismatching GPU cells of {len(labels)} labels")
EOF
cat "$status"
