#!/bin/sh
# aitk-run CMD [ARGS...]: runs CMD (python when none is given) with the environment of this
# aitk-env prefix, the same one `aitk-env run` gives. Written by `aitk-env setup`, which
# overwrites changes made here.
# shellcheck disable=SC2016,SC2163 # (literal values; exports of names held in variables)
_aitk_prefix=@SH_PREFIX@
_aitk_scripts=@SH_SCRIPTS@
_aitk_remember() { :; }

@POSIX_ENVIRONMENT@

unset _aitk_prefix _aitk_scripts
[ "$#" -gt 0 ] || set -- python
exec "$@"
