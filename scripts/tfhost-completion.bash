# bash completion for tfhost                                  -*- shell-script -*-
# Installed as share/bash-completion/completions/tfhost (make install, make dist);
# by hand: `source scripts/tfhost-completion.bash`.
#
# Nothing here lists commands or flags: they come from the binary being completed,
# so the completion cannot go stale. `tfhost --help` gives the commands (its
# "Commands:" section), `tfhost CMD [SUB] --help` a command's flags (its "Flags:"
# section, with each flag's value name) and, for commands that dispatch to
# subcommands (data, data cache), those subcommands. Each help text is read once per
# shell and binary (one run of tfhost, about 0.1 s, the first time a command is
# completed). Flag values: the choices of a value name such as fp32|bf16 (a lone
# lowercase word, as in `--emit k8s`, is the only choice), folders for DIR, files
# for FILE/PATH/PREFIX/RECORDING; positional arguments are files;
# after `launch ... --`, a command.
# Needs bash 4.2; uses bash-completion's helpers when they are loaded, and works
# without them.

declare -gA _tfhost_help_cache=()

# _tfhost_help BIN [WORDS...]: `BIN WORDS... --help` into _tfhost_text, cached.
_tfhost_help() {
  local key="$*"
  if [[ -z ${_tfhost_help_cache[$key]+set} ]]; then
    _tfhost_help_cache[$key]="$(LC_ALL=C "$@" --help 2>/dev/null)"
  fi
  _tfhost_text=${_tfhost_help_cache[$key]}
}

# _tfhost_subcommands BIN [WORDS...]: the subcommands of `tfhost WORDS...` into the
# array _tfhost_words (the commands when WORDS is empty).
_tfhost_subcommands() {
  local line in_commands=0
  _tfhost_words=()
  _tfhost_help "$@"
  if (( $# == 1 )); then
    while IFS= read -r line; do
      if [[ $line == Commands:* ]]; then in_commands=1; continue; fi
      (( in_commands )) || continue
      [[ -z $line ]] && break
      [[ $line =~ ^\ \ ([a-z][a-z0-9-]*) ]] && _tfhost_words+=("${BASH_REMATCH[1]}")
    done <<<"$_tfhost_text"
    return
  fi
  # A command that dispatches has no "Flags:" section; it lists its subcommands one
  # per line, indented by two ("  inspect FILES...   record counts ..."), and may name
  # them in its usage line ("Usage: tfhost data cache <warm|status|evict> [args]").
  if [[ -n $_tfhost_text && $_tfhost_text != *$'\nFlags:'* ]]; then
    while IFS= read -r line; do
      if [[ $line =~ ^Usage:.*\<([a-z|-]+)\> ]]; then
        local -a named
        IFS='|' read -ra named <<<"${BASH_REMATCH[1]}"
        _tfhost_words+=("${named[@]}")
      elif [[ $line =~ ^\ \ ([a-z][a-z0-9-]*)(\ |$) ]]; then
        _tfhost_words+=("${BASH_REMATCH[1]}")
      fi
    done <<<"$_tfhost_text"
  fi
  # Subcommands their parent's help does not list.
  case "${*:2}" in
    bench) _tfhost_words+=(allreduce) ;;
  esac
  # Each once (data names its subcommands in both places), in order.
  local -A seen=()
  local -a unique=()
  for line in "${_tfhost_words[@]}"; do
    [[ -n ${seen[$line]+set} ]] || unique+=("$line")
    seen[$line]=1
  done
  _tfhost_words=("${unique[@]}")
}

# _tfhost_flags BIN [WORDS...]: the flags of `tfhost WORDS...` into the array
# _tfhost_words, and each flag's value name (empty: takes no value) into the
# associative array _tfhost_values.
_tfhost_flags() {
  local line in_flags=0 flag rest token after
  _tfhost_words=(--help)
  _tfhost_values=()
  _tfhost_help "$@"
  while IFS= read -r line; do
    if [[ $line == Flags:* ]]; then in_flags=1; continue; fi
    (( in_flags )) || continue
    [[ $line =~ ^\ \ (--[A-Za-z0-9_-]+)(.*)$ ]] || continue
    flag=${BASH_REMATCH[1]} rest=${BASH_REMATCH[2]} token=""
    # "  --flag VALUE   description": the value name follows the flag after one space;
    # the description follows after two or more (or one, when the flag and its value
    # name fill the column: "--rest_api_max_body_mb MB largest ...").
    if [[ $rest =~ ^\ ([^ ]+)(.*)$ ]]; then
      after=${BASH_REMATCH[2]}
      if [[ ${BASH_REMATCH[1]} != *[a-z]* || ${BASH_REMATCH[1]} == *'|'* ||
            -z $after || $after == '  '* ]]; then
        token=${BASH_REMATCH[1]}
      fi
    fi
    [[ $flag == --help ]] || _tfhost_words+=("$flag")
    _tfhost_values[$flag]=$token
  done <<<"$_tfhost_text"
}

_tfhost_files() {  # _tfhost_files [-d]: files (or folders) matching $cur
  if declare -F _filedir >/dev/null; then
    _filedir "$@"
  else
    compopt -o filenames 2>/dev/null
    if [[ ${1-} == -d ]]; then
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
  fi
}

_tfhost_choose() {  # _tfhost_choose WORD...: those starting with $cur
  mapfile -t COMPREPLY < <(compgen -W "$*" -- "$cur")
}

_tfhost() {
  COMPREPLY=()
  local _tfhost_text
  local -a _tfhost_words
  local -A _tfhost_values
  # The words up to the cursor, with `--flag=value` put back together: bash splits
  # it at '=' (a word break), and only the line tells `--f=v` from `--f= v`.
  local -a words=()
  local line=${COMP_LINE:0:COMP_POINT} rest i w gap joined_eq=0 split=0
  for ((i = 0; i <= COMP_CWORD && i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    rest=${line#"${line%%[![:space:]]*}"}
    gap=$(( ${#line} - ${#rest} ))
    line=${rest#"$w"}
    if (( i > 1 && gap == 0 )) && [[ ${words[-1]} == --* ]] &&
       [[ ( $w == = && ${words[-1]} != *=* ) || ( $joined_eq == 1 && ${words[-1]} == *= ) ]]; then
      words[-1]+=$w
      [[ $w == = ]] && joined_eq=1 split=1 || joined_eq=0
    else
      words+=("$w")
      joined_eq=0
    fi
  done
  local cword=$(( ${#words[@]} - 1 ))
  local cur=${words[cword]}

  local bin=${words[0]}
  bin=${bin/#\~/$HOME}
  type -P -- "$bin" >/dev/null 2>&1 || [[ -x $bin ]] || return 0

  if (( cword == 1 )); then
    if [[ $cur == -* ]]; then
      _tfhost_choose --help --version
    else
      _tfhost_subcommands "$bin"
      _tfhost_choose "${_tfhost_words[@]}"
    fi
    return 0
  fi

  # The command path: the command, then each word that names a subcommand of the
  # path so far, right after it (tfhost data cache warm ...).
  local -a path=("${words[1]}")
  if [[ ${words[1]} == help ]]; then
    if (( cword == 2 )); then
      _tfhost_subcommands "$bin"
      _tfhost_choose "${_tfhost_words[@]}"
    fi
    return 0
  fi
  for ((i = 2; i < cword; i++)); do
    _tfhost_subcommands "$bin" "${path[@]}"
    if (( ${#_tfhost_words[@]} )) && [[ " ${_tfhost_words[*]} " == *" ${words[i]} "* ]]; then
      path+=("${words[i]}")
    else
      break
    fi
  done

  # After `--` comes a command of the user's (tfhost launch ... -- python3 train.py).
  for ((i = ${#path[@]} + 1; i < cword; i++)); do
    if [[ ${words[i]} == -- ]]; then
      if declare -F _command_offset >/dev/null && (( split == 0 )); then
        _command_offset $((i + 1))
      elif (( cword == i + 1 )); then
        mapfile -t COMPREPLY < <(compgen -c -- "$cur")
      else
        _tfhost_files
      fi
      return 0
    fi
  done

  # The value of a flag: --flag VALUE or --flag=VALUE.
  local flag="" prefix=""
  if [[ $cur == --*=* ]]; then
    flag=${cur%%=*}
    cur=${cur#*=}
    # With '=' a word break, bash replaces only the text after it; otherwise the whole word.
    [[ ${COMP_WORDS[COMP_CWORD]} == --*=* ]] && prefix="$flag="
  elif (( cword > ${#path[@]} + 1 )) && [[ ${words[cword-1]} == --* ]]; then
    flag=${words[cword-1]}
  fi
  if [[ -n $flag ]]; then
    _tfhost_flags "$bin" "${path[@]}"
    local value=${_tfhost_values[$flag]-}
    if [[ -n $value ]]; then
      if [[ $value =~ ^[a-z0-9_-]+(\|[a-z0-9_-]+)*$ ]]; then
        _tfhost_choose "${value//|/ }"
      elif [[ $value =~ ^DIR ]]; then
        _tfhost_files -d
      elif [[ $value =~ FILE|PATH|PREFIX|DIR|RECORDING ]]; then
        _tfhost_files
      fi
      if [[ -n $prefix ]]; then
        COMPREPLY=("${COMPREPLY[@]/#/$prefix}")
      fi
      return 0
    fi
    [[ -n $prefix ]] && return 0
  fi

  if [[ $cur == -* ]]; then
    _tfhost_flags "$bin" "${path[@]}"
    _tfhost_choose "${_tfhost_words[@]}"
    return 0
  fi
  if (( cword == ${#path[@]} + 1 )); then
    _tfhost_subcommands "$bin" "${path[@]}"
    if (( ${#_tfhost_words[@]} )); then
      local -a subcommands=("${_tfhost_words[@]}")
      _tfhost_choose "${subcommands[@]}"
      # A command with flags of its own that also has subcommands (bench MODEL,
      # bench allreduce) gets files too; a pure dispatcher (data) does not.
      if [[ $_tfhost_text == *$'\nFlags:'* ]]; then
        local -a chosen=("${COMPREPLY[@]}")
        COMPREPLY=()
        _tfhost_files
        COMPREPLY=("${chosen[@]}" "${COMPREPLY[@]}")
      fi
      return 0
    fi
  fi
  _tfhost_files
  return 0
} &&
  complete -F _tfhost tfhost
