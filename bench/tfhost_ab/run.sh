#!/usr/bin/env bash
# Two tfhost builds on one model, alternating: A, B, A, B, ... `tfhost bench`
# p50 per round, then the medians and the median of the per-pair ratios.
# On a noisy machine only pairs measured back to back compare; this is how
# docs/perf.md's end-to-end A/B figures (session 8 on) were taken.
#
#   bench/tfhost_ab/run.sh TFHOST_A TFHOST_B MODEL ROUNDS [tfhost bench flags...]
#   e.g. bench/tfhost_ab/run.sh /tmp/base/build/tfhost build/tfhost \
#          ../shared/fixtures/models/tfjs/blazeface 8 --runs 20 --warmup 5
# The flags must select one row (one --batch and one --threads).
set -euo pipefail
[[ $# -ge 4 ]] || { sed -n '2,11p' "$0" >&2; exit 2; }
a="$1" b="$2" model="$3" rounds="$4"
shift 4
for bin in "$a" "$b"; do [[ -x "$bin" ]] || { echo "run.sh: no tfhost at $bin" >&2; exit 2; }; done
p50() { "$1" bench "$model" --json "${@:2}" | node -e '
  const rows = JSON.parse(require("fs").readFileSync(0, "utf8")).results;
  if (rows.length !== 1) { console.error("run.sh: flags select " + rows.length + " rows, want 1"); process.exit(2); }
  console.log(rows[0].p50_ms);'; }
echo "# $(date -u '+%F %H:%M') UTC, load $(cut -d' ' -f1-3 /proc/loadavg); A = $a, B = $b"
echo "# $model $*"
pairs=()
for ((r = 1; r <= rounds; ++r)); do
  pa="$(p50 "$a" "$@")"
  pb="$(p50 "$b" "$@")"
  echo "round $r: A $pa ms, B $pb ms"
  pairs+=("$pa $pb")
done
printf '%s\n' "${pairs[@]}" | node -e '
  const p = require("fs").readFileSync(0, "utf8").trim().split("\n").map((l) => l.split(" ").map(Number));
  const median = (xs) => { const s = [...xs].sort((x, y) => x - y); const n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
  const ma = median(p.map((x) => x[0])), mb = median(p.map((x) => x[1]));
  console.log(`median A ${ma.toFixed(3)} ms, B ${mb.toFixed(3)} ms; A/B of medians ${(ma / mb).toFixed(3)}; ` +
              `median of pair ratios ${median(p.map((x) => x[0] / x[1])).toFixed(3)} (above 1: B is faster)`);'
