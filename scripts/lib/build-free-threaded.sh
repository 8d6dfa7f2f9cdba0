# Sourced by scripts/setup-python-chroot.sh: builds free-threaded CPython (3.13t, 3.14t,
# 3.15t) inside the sid chroot, from Debian's own python3.X source packages, since Debian
# ships no free-threaded interpreter. The mirror does not serve every version its index
# lists, so each version the Sources index names is tried, newest first; apt checks the
# download against the signed index's SHA-256. Each build is cached (skipped when present) and atomic: it
# is configured, built and installed into a scratch folder, and only a finished install
# is renamed to /opt/python3.Xt, linked as /usr/local/bin/python3.Xt and listed in
# the chroot's .gilscope-ft-stamp ("python3.15t 3.15.2" per line), which the tests read.

FT_VERSIONS=(3.13 3.14 3.15)
FT_BUILD_DEPS=(gcc make libc6-dev dpkg-dev xz-utils pkg-config zlib1g-dev libzstd-dev)

ft_die() {
    echo "setup-python-chroot: error: free-threaded build: $*" >&2
    exit 1
}

ft_chroot() {
    chroot "$FT_ROOT" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root DEBIAN_FRONTEND=noninteractive "$@"
}

# Runs "$@" in the chroot with its output in a log, which is shown if the step fails.
ft_step() {
    local what=$1
    shift
    if ! ft_chroot "$@" >"$FT_LOG" 2>&1; then
        tail -n 25 "$FT_LOG" >&2
        ft_die "$what failed (last lines above)"
    fi
}

ft_write_stamp() {
    local tmp="$FT_ROOT/.gilscope-ft-stamp.tmp" v
    : >"$tmp"
    for v in "${FT_VERSIONS[@]}"; do
        [[ -f "$FT_ROOT/opt/python${v}t/.gilscope-built" ]] &&
            cat "$FT_ROOT/opt/python${v}t/.gilscope-built" >>"$tmp"
    done
    mv "$tmp" "$FT_ROOT/.gilscope-ft-stamp"
}

# deb-src for sid, once per chroot.
ft_sources() {
    [[ -f "$FT_ROOT/etc/apt/sources.list.d/gilscope-src.list" ]] && return 0
    local mirror
    mirror=$(awk '$1 == "deb" {print $2; exit}' "$FT_ROOT/etc/apt/sources.list")
    [[ -n "$mirror" ]] || ft_die "the chroot's apt sources name no mirror"
    echo "deb-src $mirror sid main" >"$FT_ROOT/etc/apt/sources.list.d/gilscope-src.list.tmp"
    mv "$FT_ROOT/etc/apt/sources.list.d/gilscope-src.list.tmp" \
        "$FT_ROOT/etc/apt/sources.list.d/gilscope-src.list"
    # The sid mirror may serve a Release file past its Valid-Until date.
    ft_step "apt-get update (deb-src for sid)" \
        apt-get -o Acquire::Check-Valid-Until=false update
}

# Compilers and headers, once per chroot.
ft_build_tools() {
    [[ -f "$FT_ROOT/.gilscope-ft-deps" ]] && return 0
    echo "setup-python-chroot: installing the build tools: ${FT_BUILD_DEPS[*]}"
    ft_step "installing the build tools (${FT_BUILD_DEPS[*]})" \
        apt-get install -y --no-install-recommends "${FT_BUILD_DEPS[@]}"
    ft_chroot apt-get clean >/dev/null 2>&1 || true
    touch "$FT_ROOT/.gilscope-ft-deps"
}

ft_build_one() {
    local v=$1 prefix="/opt/python${1}t"
    [[ -f "$FT_ROOT$prefix/.gilscope-built" ]] && return 0
    ft_sources
    local work
    work=$(mktemp -d "$FT_ROOT/var/tmp/gilscope-ft-$v.XXXXXX") || ft_die "cannot create a build folder"
    # Runs in its own subshell (build_free_threaded): the trap clears this version's scratch.
    # The path is expanded now: the trap runs after this function, where `work` is gone
    # (set -u would call it unbound).
    # shellcheck disable=SC2064
    trap "rm -rf --one-file-system '$work'" EXIT
    local inside=${work#"$FT_ROOT"}
    echo "setup-python-chroot: building python${v}t from Debian's python$v source (several minutes)"
    # The source first: it is the step most likely to fail, and the cheapest.
    local versions got=""
    versions=$(ft_chroot apt-cache showsrc "python$v" 2>/dev/null |
        awk '/^Package: /{p=$2} /^Version: /{if (p == "'"python$v"'") print $2}' | sort -rV | uniq)
    [[ -n "$versions" ]] || ft_die "the Sources index lists no python$v"
    local ver
    for ver in $versions; do
        if ft_chroot sh -c "cd '$inside' && apt-get source --download-only 'python$v=$ver'" \
            >"$FT_LOG" 2>&1; then
            got=$ver
            break
        fi
        echo "setup-python-chroot: python$v $ver: not served ($(grep -m1 -o '[0-9]\{3\} [A-Za-z ]*' "$FT_LOG" || echo failed))"
        rm -f "$work"/*
    done
    if [[ -z "$got" ]]; then
        tail -n 5 "$FT_LOG" >&2
        ft_die "apt-get source python$v: none of $(echo $versions) is served (last lines above)"
    fi
    ft_build_tools
    ft_step "unpacking python$v's source" sh -c "cd '$inside' && dpkg-source --skip-patches -x python${v}_*.dsc"
    local src
    src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name "python$v-*" | head -n1)
    [[ -n "$src" ]] || ft_die "apt-get source python$v unpacked no source tree"
    src=${src#"$FT_ROOT"}
    # Shared libpython (libpython3.Xt.so) found through the rpath; no PGO, no tests.
    ft_step "configure --disable-gil (python$v)" sh -c "cd '$src' && ./configure \
        --disable-gil --enable-shared --prefix=$prefix --without-ensurepip \
        LDFLAGS=-Wl,-rpath,$prefix/lib"
    ft_step "make (python$v)" sh -c "cd '$src' && nice make -j$(nproc)"
    ft_step "make altinstall (python$v)" sh -c "cd '$src' && make altinstall DESTDIR='$inside/stage'"
    # The staged interpreter must be free-threaded before it is put in place.
    [[ -d "$work/stage$prefix" ]] || ft_die "make altinstall put nothing under $prefix"
    rm -rf --one-file-system "$FT_ROOT$prefix"
    mv "$work/stage$prefix" "$FT_ROOT$prefix"
    local full
    full=$(ft_chroot "$prefix/bin/python${v}t" -c \
        'import sys, platform; assert not sys._is_gil_enabled(); print(platform.python_version())') ||
        ft_die "python${v}t does not run, or runs with a GIL"
    mkdir -p "$FT_ROOT/usr/local/bin"
    ln -sfn "$prefix/bin/python${v}t" "$FT_ROOT/usr/local/bin/python${v}t"
    echo "python${v}t $full" >"$FT_ROOT$prefix/.gilscope-built"
    rm -rf --one-file-system "$work"
    echo "setup-python-chroot: python${v}t $full installed in $prefix"
}

# build_free_threaded CHROOT_DIR
build_free_threaded() {
    FT_ROOT=$1
    FT_LOG=$(mktemp)
    trap 'rm -f "$FT_LOG"' EXIT
    local v failed=0
    # One version's failure (its source not served) does not stop the others.
    for v in "${FT_VERSIONS[@]}"; do
        (ft_build_one "$v") || failed=1
    done
    ft_write_stamp
    rm -f "$FT_LOG"
    trap - EXIT
    echo "setup-python-chroot: free-threaded interpreters:"
    sed 's/^/  /' "$FT_ROOT/.gilscope-ft-stamp"
    return "$failed"
}
