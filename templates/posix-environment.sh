# --- The prefix's environment, by the rules of aitk-env's src/shim/environment_policy.cpp ------
# Expects _aitk_prefix, _aitk_scripts and a function _aitk_remember NAME (called before NAME
# changes). Only shell builtins run here, except one awk that lists the PIP_* names.

# Whether folder $1 holds CUDA, cuDNN, NCCL or OpenMP runtimes (judged from its text, ASCII case
# ignored, / and \ alike): they would shadow the libraries the torch wheels bundle.
_aitk_shadows() {
    case /$1/ in
        @SH_KEEP_PATTERNS@)
            return 1 ;;
        @SH_SHADOW_PATTERNS@)
            return 0 ;;
    esac
    return 1
}

# Sets NAME to VALUE unless the user already set NAME.
_aitk_default() {
    if eval "[ -z \"\${$1+x}\" ]"; then
        _aitk_remember "$1"
        eval "$1=\$2"
        export "$1"
    fi
}

# Python and pip must not look outside the prefix.
for _aitk_name in @SH_SCRUBBED_NAMES@ $(PATH="${PATH:+$PATH:}/usr/bin:/bin" awk 'BEGIN { for (name in ENVIRON) if (name ~ /^PIP_[A-Za-z0-9_]*$/) print name }'); do
    if eval "[ -n \"\${$_aitk_name+x}\" ]"; then
        _aitk_remember "$_aitk_name"
        unset "$_aitk_name"
    fi
done

_aitk_remember VIRTUAL_ENV
VIRTUAL_ENV=$_aitk_prefix
export VIRTUAL_ENV

# The prefix's programs first, each folder once.
_aitk_remember PATH
_aitk_list=${PATH-}
PATH=$_aitk_scripts
if [ -n "$_aitk_list" ]; then
    while :; do
        _aitk_entry=${_aitk_list%%:*}
        [ "$_aitk_entry" = "$_aitk_scripts" ] || PATH=$PATH:$_aitk_entry
        case $_aitk_list in
            *:*) _aitk_list=${_aitk_list#*:} ;;
            *) break ;;
        esac
    done
fi
export PATH

# Library folders that would shadow the wheels' runtimes go, and so do empty entries (the
# current directory).
if [ -n "${LD_LIBRARY_PATH+x}" ]; then
    _aitk_list=$LD_LIBRARY_PATH
    _aitk_kept=
    while :; do
        _aitk_entry=${_aitk_list%%:*}
        if [ -n "$_aitk_entry" ] && ! _aitk_shadows "$_aitk_entry"; then
            _aitk_kept=${_aitk_kept:+$_aitk_kept:}$_aitk_entry
        fi
        case $_aitk_list in
            *:*) _aitk_list=${_aitk_list#*:} ;;
            *) break ;;
        esac
    done
    if [ "$_aitk_kept" != "$LD_LIBRARY_PATH" ]; then
        _aitk_remember LD_LIBRARY_PATH
        if [ -n "$_aitk_kept" ]; then
            LD_LIBRARY_PATH=$_aitk_kept
            export LD_LIBRARY_PATH
        else
            unset LD_LIBRARY_PATH
        fi
    fi
fi

# The lock's variables.
@SH_VARIABLES@
unset _aitk_name _aitk_list _aitk_entry _aitk_kept
unset -f _aitk_shadows _aitk_default
# --- end of the prefix's environment ------------------------------------------------------------
