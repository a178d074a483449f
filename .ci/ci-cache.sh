# shellcheck shell=bash
# Sourced by .ci scripts: where CI keeps what it makes once and reuses in later runs, and in a
# fresh clone too (the debootstrap roots of .ci/minbase and .ci/trixie, ~1.7 GB together).

# ci_cache_dir ROOT: prints that folder. AITK_CI_CACHE when set; else beside the objects in this
# machine's ccache folder (<ccache dir>/aitk-ci: ccache's cleanup looks only at its own 0-f
# subfolders), so that a CI machine that keeps its ccache between runs keeps these too and a
# fresh clone does not make them again (about 5 minutes: two minbase debootstraps, and the
# trixie root with its build packages); else ROOT/build, as before there was a ccache.
ci_cache_dir() {
    local host
    if [ -n "${AITK_CI_CACHE:-}" ]; then
        echo "$AITK_CI_CACHE"
        return 0
    fi
    host=$(ccache -k cache_dir 2>/dev/null || true)
    if [ -n "$host" ]; then echo "$host/aitk-ci"; else echo "$1/build"; fi
}

# root_is_stale STAMP_FILE: true when a root was made more than 30 days ago (its stamp file's
# time): its package lists would by then name versions the mirror no longer serves.
root_is_stale() {
    [ -n "$(find "$1" -maxdepth 0 -mtime +30 2>/dev/null)" ]
}

# lock_ci_cache DIR: waits until no other run on this machine uses the roots in DIR, and holds
# them until this shell exits (the scripts write into the roots).
lock_ci_cache() {
    mkdir -p "$1"
    exec 8>"$1/.lock"
    flock 8
}
