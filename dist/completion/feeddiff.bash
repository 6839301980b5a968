# bash completion for feeddiff(1): commands, options and their values, the archive's source
# names (from its feeddiff.toml) and commit ids (from its git history).
# tests/cli/install_test.cc checks the candidates against `feeddiff --help` and each command's
# --help, so this table cannot drift from the program unnoticed.

# The archive the command line names: -C's value, else the current directory; then the top of
# its git repository, as feeddiff searches upwards.
_feeddiff_archive() {
  local dir=. i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -C) dir=${COMP_WORDS[i + 1]} ;;
      -C?*) dir=${COMP_WORDS[i]#-C} ;;
    esac
  done
  [[ $dir == "~"* ]] && dir=$HOME${dir#"~"}
  git -C "$dir" rev-parse --show-toplevel 2>/dev/null
}

# The source names: the [sources.NAME] and [sources."NAME"] tables of feeddiff.toml.
_feeddiff_sources() {
  local top
  top=$(_feeddiff_archive) || return 0
  [[ -r $top/feeddiff.toml ]] || return 0
  sed -n 's/^[[:space:]]*\[[[:space:]]*sources\.\("\{0,1\}\)\([A-Za-z0-9._-]*\)\1[[:space:]]*\].*/\2/p' \
    "$top/feeddiff.toml"
}

# Commit ids, newest first, and HEAD.
_feeddiff_commits() {
  local top
  top=$(_feeddiff_archive) || return 0
  echo HEAD
  git -C "$top" log -n 100 --format=%h 2>/dev/null
}

# Each command's options; those that take a value end in '='.
_feeddiff_options() {
  case $1 in
    init | remove | normalize) echo "-h --help" ;;
    cat) echo "-h --help --feed --at=" ;;
    add) echo "-h --help --every= --articles --backfill" ;;
    backfill) echo "-h --help --max-pages= --delay= --timeout= --max-body= --wait" ;;
    poll) echo "-h --help --force --wait -q --quiet -v --verbose --no-progress --digest -j= --jobs=
      --per-host= --timeout= --connect-timeout= --max-body= --shard= --sync --remote=" ;;
    sync) echo "-h --help --tries= --wait -q --quiet" ;;
    log) echo "-h --help -n= --format= --items --cosmetic" ;;
    show) echo "-h --help --format= --normalized --max-lines= --max-line-chars= --only= --at=" ;;
    history) echo "-h --help --format= --at=" ;;
    status) echo "-h --help --json --shard=" ;;
    clone) echo "-h --help" ;;
    enable | gc) echo "-h --help --wait" ;;
    trust) echo "-h --help --all" ;;
    migrate) echo "-h --help --layout= --wait" ;;
    import) echo "-h --help --every= -n --dry-run" ;;
    export-opml) echo "-h --help -o= --output=" ;;
    export-sqlite) echo "-h --help --db=" ;;
    export-warc) echo "-h --help -o= --output= --cdxj= --since=" ;;
    site) echo "-h --help --base-url= --max-lines= --max-line-chars= --feed-entries=" ;;
    fixtures) echo "-h --help --offline --max-lines=" ;;
    items) echo "-h --help --json --at=" ;;
    article) echo "-h --help --json" ;;
    search) echo "-h --help --source= --since= --until= --limit= --format=" ;;
    diff) echo "-h --help --format= --normalized --max-lines= --max-line-chars= --only= --all --from= --to=" ;;
    '') echo "-h --help --version -C= --color=" ;;
  esac
}

# What each command's arguments are, in order; the last one repeats when it ends in '...'.
_feeddiff_arguments() {
  case $1 in
    init | site) echo "dir" ;;
    clone) echo "new dir" ;;
    sync) echo "remote" ;;
    add) echo "new new" ;;
    remove | log | enable | backfill) echo "source" ;;
    poll | status | export-sqlite | export-warc) echo "source..." ;;
    show | cat) echo "commit source" ;;
    history) echo "source item" ;;
    import | article) echo "file" ;;
    search) echo "query" ;;
    fixtures) echo "action dir" ;;
    normalize | items) echo "input source" ;;
    diff) echo "input input source" ;;
  esac
}

_feeddiff() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local commands="init clone add remove poll sync log show history cat status enable trust import export-opml
    export-sqlite export-warc gc migrate site fixtures normalize items diff article search backfill"
  COMPREPLY=()

  # `--opt=value` reaches us as `--opt`, `=`, `value` (= is in COMP_WORDBREAKS).
  local option=
  if [[ $prev == "=" && $COMP_CWORD -ge 2 ]]; then
    option=${COMP_WORDS[COMP_CWORD - 2]}
  elif [[ $cur == "=" ]]; then
    option=$prev
    cur=
  fi

  # The command, and how many of its arguments come before the word being completed.
  local command= nargs=0 i word valued
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    [[ $word == "=" ]] && { ((i++)); continue; }
    if [[ $word == -* ]]; then
      # An option that takes a value, given as a separate word, swallows the next one.
      valued=" $(_feeddiff_options "$command") "
      [[ $valued == *" $word= "* && ${COMP_WORDS[i + 1]} != "=" ]] && ((i++))
      continue
    fi
    if [[ -z $command ]]; then
      command=$word
    else
      ((nargs++))
    fi
  done

  # The value of an option.
  if [[ -z $option && $prev == -* && $prev != "$cur" ]]; then
    valued=" $(_feeddiff_options "$command") "
    [[ $valued == *" $prev= "* ]] && option=$prev
  fi
  if [[ -n $option ]]; then
    case $option in
      -C) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
      --color) mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur") ;;
      --layout) mapfile -t COMPREPLY < <(compgen -W "fanout flat" -- "$cur") ;;
      --format)
        case $command in
          log) mapfile -t COMPREPLY < <(compgen -W "text json" -- "$cur") ;;
          show) mapfile -t COMPREPLY < <(compgen -W "text markdown json html" -- "$cur") ;;
          diff) mapfile -t COMPREPLY < <(compgen -W "text markdown json html" -- "$cur") ;;
        esac ;;
      --db) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
      -o | --output) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    esac
    return 0
  fi

  if [[ $cur == -* ]]; then
    local options
    options=$(_feeddiff_options "$command")
    mapfile -t COMPREPLY < <(compgen -W "${options//=/}" -- "$cur")
    return 0
  fi

  if [[ -z $command ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
    return 0
  fi

  # The argument at this position.
  local kinds kind
  read -r -a kinds <<<"$(_feeddiff_arguments "$command")"
  if ((nargs < ${#kinds[@]})); then
    kind=${kinds[nargs]}
  elif ((${#kinds[@]})) && [[ ${kinds[-1]} == *... ]]; then
    kind=${kinds[-1]}
  fi
  case ${kind%...} in
    source) mapfile -t COMPREPLY < <(compgen -W "$(_feeddiff_sources)" -- "$cur") ;;
    commit) mapfile -t COMPREPLY < <(compgen -W "$(_feeddiff_commits)" -- "$cur") ;;
    remote) mapfile -t COMPREPLY < <(compgen -W "$(git -C "$(_feeddiff_archive)" remote 2>/dev/null)" -- "$cur") ;;
    input) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -W "$(_feeddiff_commits)" -- "$cur"; compgen -f -- "$cur") ;;
    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    dir) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    action) mapfile -t COMPREPLY < <(compgen -W "check update" -- "$cur") ;;
  esac
  return 0
}

complete -F _feeddiff feeddiff
