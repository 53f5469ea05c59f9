#!/usr/bin/env bash
# `make install PREFIX=P` without make: cmake --install of the build into a
# temporary prefix, then what a user finds there: bin/tfhost that runs, the docs,
# and a bash completion that completes, both by itself and under bash-completion's
# loader (when the bash-completion package is installed).
#   install_prefix_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"
src="$2"
fail() { echo "FAIL: $*"; exit 1; }
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT

cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/tfhost share/doc/tfhost/README.md share/doc/tfhost/docs/cli.md \
         share/bash-completion/completions/tfhost share/tfhost/instance_catalog.json; do
  [ -e "$prefix/$f" ] || fail "cmake --install put no $f in the prefix"
done
echo "installed: $(cd "$prefix" && find . -type f | sort | tr '\n' ' ')"
"$prefix/bin/tfhost" version | head -n 1
# `tfhost plan` finds the catalog installed beside it, before any source tree.
"$prefix/bin/tfhost" demo-models "$prefix/models" >/dev/null
plan_out="$("$prefix/bin/tfhost" plan "$prefix/models/mlp/1" --qps 1 --no-measure)" || fail "tfhost plan failed: $plan_out"
grep -qx "catalog: $prefix/share/tfhost/instance_catalog.json" <<<"$plan_out" ||
  fail "tfhost plan did not read the installed catalog: $(grep '^catalog:' <<<"$plan_out")"
echo "plan reads $prefix/share/tfhost/instance_catalog.json"

completion="$prefix/share/bash-completion/completions/tfhost"
bash "$src/tests/install/completion_test.sh" "$prefix/bin/tfhost" "$completion" | tail -n 1
if [ -f /usr/share/bash-completion/bash_completion ]; then
  # With bash-completion loaded, as in an interactive shell: its loader finds the file
  # under $XDG_DATA_DIRS (/usr/local/share for the default prefix), and the completion
  # uses its _filedir for paths.
  out="$(PATH="$prefix/bin:$PATH" XDG_DATA_DIRS="$prefix/share" bash -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion tfhost || { echo "bash-completion did not find the completion"; exit 1; }
    complete -p tfhost' 2>&1)" || fail "$out"
  echo "bash-completion loads it: $out"
  bash -c 'source /usr/share/bash-completion/bash_completion; source "$0" "$@"' \
    "$src/tests/install/completion_test.sh" "$prefix/bin/tfhost" "$completion" | tail -n 1
else
  echo "(bash-completion is not installed: its loader is not checked)"
fi
