# bash completion for gilscope, installed by `cmake --install` into
# share/bash-completion/completions. The commands and each command's options are read
# from gilscope's own --help, so they never fall behind it; a PID is offered from the
# Python processes `gilscope ps` lists, a file or folder where an option names one.

_gilscope_commands() {
    "$1" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p'
}

_gilscope_options() {
    "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

_gilscope_pids() {
    "$1" ps 2>/dev/null | awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $1 }'
}

_gilscope() {
    local gilscope=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD - 1]} command=${COMP_WORDS[1]}
    local IFS=$'\n'
    COMPREPLY=()
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$(_gilscope_commands "$gilscope")" -- "$cur"))
        [[ $cur != -* ]] && COMPREPLY+=($(compgen -f -X '!*.bin' -- "$cur"))
        return
    fi
    case $prev in
    -o | --output | --baseline | --diff-flamegraph | --push-queue | --python)
        COMPREPLY=($(compgen -f -- "$cur"))
        return
        ;;
    --control)
        COMPREPLY=($(compgen -W "unix:" -- "$cur"))
        return
        ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_gilscope_options "$gilscope" "$command")" -- "$cur"))
        return
    fi
    case $command in
    attach | dump) COMPREPLY=($(compgen -W "$(_gilscope_pids "$gilscope")" -- "$cur")) ;;
    run | replay | report | info | diff | open | ctl) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
}

complete -o filenames -F _gilscope gilscope
