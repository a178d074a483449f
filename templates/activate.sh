# This file must be sourced from bash or zsh: `. <prefix>/bin/activate`. It gives the
# shell the environment of its aitk-env prefix (the one bin/aitk-run gives), and `deactivate`
# restores what was there before. Written by `aitk-env setup`, which overwrites changes made here.
# shellcheck shell=sh disable=SC2016,SC2163 # (literal values; exports of names held in variables)

deactivate() {
    _aitk_mode=${1-}
    if [ -n "${_AITK_TOUCHED+x}" ]; then
        eval "set -- $_AITK_TOUCHED"
        for _aitk_name in "$@"; do
            if eval "[ -n \"\${_AITK_OLD_$_aitk_name+x}\" ]"; then
                eval "$_aitk_name=\$_AITK_OLD_$_aitk_name"
                export "$_aitk_name"
                unset "_AITK_OLD_$_aitk_name"
            else
                unset "$_aitk_name"
            fi
        done
        unset _AITK_TOUCHED _aitk_name
    fi
    if [ -n "${_AITK_OLD_PS1+x}" ]; then
        PS1=$_AITK_OLD_PS1
        unset _AITK_OLD_PS1
    fi
    hash -r 2>/dev/null || true
    if [ "$_aitk_mode" != nondestructive ]; then
        unset -f deactivate
    fi
    unset _aitk_mode
}

# Leave an earlier activation first, so its saved values are the ones restored.
deactivate nondestructive

_aitk_prefix=@SH_PREFIX@
_aitk_scripts=@SH_SCRIPTS@
_AITK_TOUCHED=
# Saves NAME's value (or that it was unset) the first time it changes, for deactivate.
_aitk_remember() {
    case " $_AITK_TOUCHED " in
        *" $1 "*) return 0 ;;
    esac
    _AITK_TOUCHED="$_AITK_TOUCHED $1"
    if eval "[ -n \"\${$1+x}\" ]"; then
        eval "_AITK_OLD_$1=\$$1"
    fi
}

@POSIX_ENVIRONMENT@

# The prompt names the prefix (when there is a prompt, and unless the user turned this off).
if [ -n "${PS1+x}" ] && [ -z "${VIRTUAL_ENV_DISABLE_PROMPT-}" ]; then
    _AITK_OLD_PS1=$PS1
    PS1=@SH_PROMPT@$PS1
fi
hash -r 2>/dev/null || true
unset _aitk_prefix _aitk_scripts
unset -f _aitk_remember
