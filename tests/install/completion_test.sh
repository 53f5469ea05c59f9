#!/usr/bin/env bash
# The bash completion (scripts/tfhost-completion.bash) against a tfhost binary:
#   completion_test.sh TFHOST COMPLETION_FILE
# Each case types a command line as a user would and compares what TAB offers.
# The expected words come from the binary's own --help where they can, so the test
# checks the completion's parsing, not a second copy of the flag lists.
# Runs without bash-completion installed (the bare chroot has none).
set -uo pipefail
bin="$1"
completion="$2"
# shellcheck source=/dev/null
source "$completion" || { echo "FAIL: cannot source $completion"; exit 1; }
failures=0
# compopt only changes how bash shows candidates, and works only inside a completion
# bash itself started; here it would just complain.
compopt() { :; }

# complete LINE: runs the completion as bash would for LINE with the cursor at its
# end ('=' is a word break, as in bash's default COMP_WORDBREAKS); prints the sorted
# candidates on one line.
complete_line() {
  local line="$1" word
  COMP_WORDS=()
  for word in $line; do
    # "--flag=value" reaches completion functions as "--flag" "=" "value".
    while [[ $word == ?*=* ]]; do
      COMP_WORDS+=("${word%%=*}" "=")
      word=${word#*=}
    done
    [[ -n $word ]] && COMP_WORDS+=("$word")
  done
  [[ $line == *' ' ]] && COMP_WORDS+=("")
  COMP_WORDS[0]="$bin"
  local typed=${line#tfhost}
  COMP_LINE="$bin$typed"
  COMP_POINT=${#COMP_LINE}
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  _tfhost
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}

expect() {  # expect LINE WORDS...: TAB after LINE offers exactly WORDS
  local line="$1"; shift
  local want got
  want="$(printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//')"
  got="$(complete_line "$line")"
  if [[ $got == "$want" ]]; then
    echo "ok    '$line' -> $got"
  else
    echo "FAIL  '$line' -> '$got', expected '$want'"
    failures=$((failures + 1))
  fi
}

expect_has() {  # expect_has LINE WORDS...: TAB after LINE offers at least WORDS
  local line="$1"; shift
  local got w
  got=" $(complete_line "$line") "
  for w in "$@"; do
    if [[ $got != *" $w "* ]]; then
      echo "FAIL  '$line' -> '$got', lacks '$w'"
      failures=$((failures + 1))
      return
    fi
  done
  echo "ok    '$line' offers $*"
}

# Commands: exactly those `tfhost --help` lists.
mapfile -t commands < <("$bin" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z0-9-]*\) .*/\1/p')
(( ${#commands[@]} >= 10 )) || { echo "FAIL: found only ${#commands[@]} commands in '$bin --help'"; exit 1; }
expect "tfhost " "${commands[@]}"
expect "tfhost r" run
expect "tfhost pl" plan
expect "tfhost d" data demo-models doctor
expect "tfhost --" --help --version
expect "tfhost help se" serve

# Every command's flags: exactly those its --help lists (help itself takes none).
for c in "${commands[@]}"; do
  [[ $c == help ]] && continue
  mapfile -t flags < <("$bin" "$c" --help | sed -n '/^Flags:/,$s/^  \(--[A-Za-z0-9_-]*\).*/\1/p')
  flags+=(--help)
  expect "tfhost $c --" $(printf '%s\n' "${flags[@]}" | sort -u)
done

# Flag values and spellings.
expect "tfhost run --pre" --precision
expect "tfhost run --precision " bf16 fp32 fp32-strict
expect "tfhost run --precision=" bf16 fp32 fp32-strict
expect "tfhost run --precision=b" bf16
expect "tfhost run --kernels r" reference
expect "tfhost plan --precision " bf16 fp16 fp32 fp8 int8 tf32
expect "tfhost doctor --for " serve train
expect "tfhost serve --rest_api_max_body_mb=" # a number: nothing to offer
expect "tfhost serve --emit " k8s
expect "tfhost serve --hpa_metric=" cpu queue
expect_has "tfhost serve --rest" --rest_api_port --rest_api_address --rest_api_timeout_in_ms

# Subcommands, nested.
expect "tfhost data " inspect head verify convert bench cache
expect "tfhost data cache " warm status evict
expect "tfhost data cache warm --cache" --cache-dir
expect "tfhost data head --" --n --json --compression --max_decompressed_mb --help
expect "tfhost bench allr" allreduce
expect_has "tfhost bench allreduce --" --backend --sizes --iters --help

# Files: model paths, DIR values, and whatever follows launch's --.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/models/half_plus_two" "$tmp/models/mlp"
touch "$tmp/models/notes.txt"
cd "$tmp"
expect "tfhost inspect models/h" models/half_plus_two
expect "tfhost run models/half_plus_two --input x=1 --output-dir models/m" models/mlp
expect "tfhost launch --log-dir models/n" # DIR: folders only
expect "tfhost predict models/mlp --input models/no" models/notes.txt
expect "tfhost launch --workers 2 -- cat models/no" models/notes.txt

if (( failures )); then
  echo "$failures completion case(s) failed"
  exit 1
fi
echo "completion: all cases pass"
