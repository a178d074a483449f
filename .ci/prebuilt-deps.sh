# Sourced by .ci scripts: the prebuilt static dependencies of the cross and portable builds, as
# .ci/windows, .ci/portable and .ci/release all need them. Each function is given the checkout's
# root and exports the variable its toolchain file reads.

# unpack_prebuilt TARBALL DIR: DIR holds TARBALL's files. Unpacked again only when the tarball
# changed (DIR/.from-tarball keeps its sha256): a fresh unpack gives every header a new mtime,
# and ninja would then rebuild everything that includes one.
unpack_prebuilt() {
    local tarball=$1 dir=$2 stamp
    stamp=$(sha256sum "$tarball" | cut -c1-64)
    if [ "$(cat "$dir/.from-tarball" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$dir" && mkdir -p "$dir"
        tar -xJf "$tarball" -C "$dir"
        echo "$stamp" >"$dir/.from-tarball"
    fi
}

# mingw_deps ROOT: exports AITK_MINGW_DEPS (cmake/windows/mingw-w64.toolchain.cmake): as set, else
# ROOT/build/mingw-deps, unpacked from ../shared/windows-mingw/ (or AITK_MINGW_DEPS_TARBALL) or,
# where no prebuilt copy exists, built from Debian's sources by .ci/windows-deps (~20 CPU-min).
mingw_deps() {
    local root=$1 tarball
    [ -n "${AITK_MINGW_DEPS:-}" ] && return 0
    export AITK_MINGW_DEPS=$root/build/mingw-deps
    tarball=${AITK_MINGW_DEPS_TARBALL:-$root/../shared/windows-mingw/deps-x86_64-w64-mingw32.tar.xz}
    if [ -f "$tarball" ]; then
        unpack_prebuilt "$tarball" "$AITK_MINGW_DEPS"
    elif [ ! -f "$AITK_MINGW_DEPS/lib/libcurl.a" ]; then
        PREFIX=$AITK_MINGW_DEPS J=$(nproc) bash "$root/.ci/windows-deps"
    fi
}

# linux_deps ROOT ARCH: exports AITK_LINUX_DEPS (cmake/linux/static-deps.toolchain.cmake): as
# set, else ROOT/build/linux-deps-ARCH, unpacked from
# ../shared/linux-static/deps-ARCH-linux-gnu.tar.xz (or AITK_LINUX_DEPS_TARBALL) or, where no
# prebuilt copy exists, built from Debian's sources by .ci/linux-deps ARCH (~10 min on 2 cores;
# needs deb-src entries, see its header). A copy that build left unfinished
# (.linux-deps-todo) is built again. Returns non-zero, after .ci/linux-deps said which step
# failed, when that build fails.
linux_deps() {
    local root=$1 arch=$2 tarball
    [ -n "${AITK_LINUX_DEPS:-}" ] && return 0
    export AITK_LINUX_DEPS=$root/build/linux-deps-$arch
    tarball=${AITK_LINUX_DEPS_TARBALL:-$root/../shared/linux-static/deps-$arch-linux-gnu.tar.xz}
    if [ -f "$tarball" ]; then
        unpack_prebuilt "$tarball" "$AITK_LINUX_DEPS"
    elif [ ! -f "$AITK_LINUX_DEPS/lib/libcurl.a" ] || [ -e "$AITK_LINUX_DEPS/.linux-deps-todo" ]; then
        echo "no prebuilt static $arch dependencies ($tarball): building them into $AITK_LINUX_DEPS" >&2
        # (STEPS and OUT emptied: a full build, nothing packed, whatever the caller's environment says)
        PREFIX=$AITK_LINUX_DEPS J=$(nproc) STEPS='' OUT='' bash "$root/.ci/linux-deps" "$arch"
    fi
}
