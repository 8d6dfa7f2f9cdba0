#!/usr/bin/env bash
# Proves both package lists of scripts/install-deps.sh on a bare Debian 12: unpacks a
# clean `debootstrap --variant=minbase bookworm` system into a temporary root, copies this
# checkout in, and there runs `scripts/run.sh --help` and `scripts/run.sh ps` (which
# install what is missing with scripts/install-deps.sh, configure, build the gilscope
# executable and start it) and the README's command-line examples
# (scripts/lib/readme-examples.sh), checks that this pulled in none of the test tools, then
# installs the test list (`install-deps.sh --test`, as scripts/test.sh does) and starts
# each test tool once. A package that install-deps.sh forgets fails here, whatever the
# machine running the check has installed.
#
#   scripts/check-fresh-machine.sh
#
# The bare system is cached as a tarball in /var/cache/gilscope (GILSCOPE_CACHE_DIR);
# packages are only ever installed in the temporary copy, never in the cache (their
# downloaded files are kept in GILSCOPE_CACHE_DIR/apt-archives, so a warm run does not
# download them again). Needs root
# (debootstrap, chroot, mounts): without it the check says why and is skipped, except
# under CI (CI=true), where it fails.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)

CACHE="${GILSCOPE_CACHE_DIR:-/var/cache/gilscope}"
TARBALL="$CACHE/bookworm-minbase.tar.gz"
LOG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gilscope-fresh-log.XXXXXX")

say() { echo "check-fresh-machine: $*"; }
skip_or_fail() {
    if [[ "${CI:-}" == "true" ]]; then
        echo "check-fresh-machine: error: $*" >&2
        exit 1
    fi
    say "skipped: $*"
    exit 0
}
# Runs one named step with its output in a log; on failure prints the step, the first
# line that looks like an error (else the last line) and the log's tail, and exits.
step() {
    local name=$1
    shift
    local log="$LOG_DIR/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_').log"
    local t0=$SECONDS
    if ! "$@" >"$log" 2>&1; then
        local first
        first=$(grep -m1 -E 'CMake Error|error:|Error:|ERROR|^E: |fatal|FAILED' "$log" ||
            grep -m1 -iE 'error|cannot|not found|no such' "$log" || tail -n 1 "$log") ||
            first="(its log $log is gone)"
        echo "check-fresh-machine: FAILED at step '$name': $first" >&2
        echo "---- last lines of the log ----" >&2
        tail -n 25 "$log" >&2 || true
        exit 1
    fi
    say "ok: $name ($((SECONDS - t0)) s)"
}

[[ $(id -u) -eq 0 ]] || skip_or_fail "needs root for debootstrap, chroot and mounts (run it with sudo)"
command -v debootstrap >/dev/null || skip_or_fail "debootstrap is not installed (scripts/install-deps.sh installs it)"

# shellcheck source=lib/debian-mirror.sh
source scripts/lib/debian-mirror.sh
MIRROR="${GILSCOPE_DEBIAN_MIRROR:-$(mirror_from_config)}"

ROOT=""
cleanup() {
    if [[ -n "$ROOT" ]]; then
        # Unmount whatever is mounted inside the root, deepest first, before deleting it.
        grep -F " $ROOT/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
        rm -rf --one-file-system "$ROOT"
    fi
    rm -rf "$LOG_DIR"
}
trap cleanup EXIT

mkdir -p "$CACHE"
if [[ ! -s "$TARBALL" ]]; then
    # A bare system only: built in a scratch directory, packed, renamed into place.
    BARE=$(mktemp -d "$CACHE/.bookworm-minbase.XXXXXX")
    ROOT=$BARE # so cleanup removes it on failure
    step "debootstrap --variant=minbase bookworm ($MIRROR)" \
        debootstrap --variant=minbase bookworm "$BARE" "$MIRROR"
    step "cache the bare system as $TARBALL" \
        sh -c "tar -C '$BARE' --numeric-owner -czf '$TARBALL.tmp' . && mv '$TARBALL.tmp' '$TARBALL'"
    rm -rf --one-file-system "$BARE"
    ROOT=""
fi

ROOT=$(mktemp -d "${TMPDIR:-/var/tmp}/gilscope-fresh.XXXXXX")
step "unpack the bare system" tar -C "$ROOT" --numeric-owner -xzf "$TARBALL"

# The checkout as git sees it (tracked files plus untracked ones it does not ignore), so
# a stray build directory or a local file cannot make the check pass.
mkdir -p "$ROOT/src"
copy_checkout() {
    if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
        git -C "$SRC" ls-files -z --cached --others --exclude-standard |
            while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done |
            tar -C "$SRC" --null -T - -cf - | tar -C "$ROOT/src" -xf -
    else
        tar -C "$SRC" --exclude='./build*' -cf - . | tar -C "$ROOT/src" -xf -
    fi
}
step "copy the checkout into the bare system" copy_checkout

cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# debootstrap writes no /etc/hosts (Debian's installer does): without it "localhost" does
# not resolve. Debian's default one.
[[ -s "$ROOT/etc/hosts" ]] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$ROOT/etc/hosts"
mount -t proc proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
mount --bind /dev/pts "$ROOT/dev/pts" # apt and dpkg want a pty for their logs
# A local package cache: the packages are downloaded once, later runs install the same
# files from it (apt still fetches the lists and checks every file's hash against them).
APT_CACHE="$CACHE/apt-archives"
mkdir -p "$APT_CACHE/partial"
mount --bind "$APT_CACHE" "$ROOT/var/cache/apt/archives"

in_root() {
    chroot "$ROOT" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}
# The build inside goes through this machine's compiler cache when it has one: the tool
# is copied to /opt/host-ccache (it is not installed: dpkg in the bare system knows nothing
# of it) and the cache is mounted. It proves the same: a file whose headers the run set
# lacks misses the cache (ccache checks every header it included before), and the
# preprocessor then fails on it; the executable is linked against the bare system's
# libraries for real. Without ccache here, the build compiles everything.
cached_env=()
if command -v ccache >/dev/null && host_cache=$(ccache -k cache_dir 2>/dev/null) &&
    [[ -d "$host_cache" ]]; then
    mkdir -p "$ROOT/opt/host-ccache/lib" "$ROOT/var/cache/host-ccache"
    cp "$(command -v ccache)" "$ROOT/opt/host-ccache/ccache.bin"
    # Its libraries that a bare system lacks (hiredis), beside it.
    ldd "$(command -v ccache)" | awk '/=> \// {print $3}' | while read -r lib; do
        [[ -e "$ROOT$lib" ]] || cp "$lib" "$ROOT/opt/host-ccache/lib/"
    done
    printf '#!/bin/sh\nLD_LIBRARY_PATH=/opt/host-ccache/lib exec /opt/host-ccache/ccache.bin "$@"\n' \
        >"$ROOT/opt/host-ccache/ccache"
    chmod 755 "$ROOT/opt/host-ccache/ccache"
    mount --bind "$host_cache" "$ROOT/var/cache/host-ccache"
    cached_env=(CCACHE_DIR=/var/cache/host-ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1
        CMAKE_CXX_COMPILER_LAUNCHER=/opt/host-ccache/ccache)
    say "the build inside uses this machine's compiler cache ($host_cache)"
fi
in_root_cached() { in_root "${cached_env[@]}" "$@"; }
# What the bare system has before anything is installed: a test tool already there (the
# archive keyring comes with apt itself) was not brought by the run set.
in_root dpkg-query -W -f='${Package}\n' >"$ROOT/tmp/bare-packages"
# The README's first command, exactly: it installs what is missing, builds, starts gilscope.
step "scripts/run.sh --help (install-deps, configure, build gilscope, run)" \
    in_root_cached /bin/bash -c 'cd /src && scripts/run.sh --help'
step "scripts/run.sh ps" in_root_cached /bin/bash -c 'cd /src && scripts/run.sh ps'
# The README's command-line examples, as written: a flame graph, and the host agent
# pushing to a stand-in Pyroscope (python3 comes with the run set).
step "the README's examples run as written" in_root /bin/bash -c 'cd /src && scripts/lib/readme-examples.sh'
step "install-deps.sh has nothing left to install" \
    in_root /bin/bash -c 'cd /src && out=$(scripts/install-deps.sh) && [ -z "$out" ] || { echo "error: a second run still installs: $out"; exit 1; }'
# A user who only runs gilscope installs no test tools.
step "scripts/run.sh installed none of the test tools" \
    in_root /bin/bash -c 'cd /src && for p in $(scripts/install-deps.sh --list-test); do
        grep -qx "$p" /tmp/bare-packages && continue
        if dpkg-query -W -f="\${Status}" "$p" 2>/dev/null | grep -q "install ok installed"; then
            echo "error: $p (a test tool) came with the run set"; exit 1; fi; done'
# The second list, as scripts/test.sh installs it, and each tool starts.
step "scripts/install-deps.sh --test" in_root /bin/bash -c 'cd /src && scripts/install-deps.sh --test'
step "install-deps.sh --test has nothing left to install" \
    in_root /bin/bash -c 'cd /src && out=$(scripts/install-deps.sh --test) && [ -z "$out" ] || { echo "error: a second run still installs: $out"; exit 1; }'
step "the test tools start" \
    in_root /bin/bash -c 'chromium --version && go version && clang-format --version &&
        clang --version && python3 --version && ccache --version &&
        /usr/bin/python3 -c "import numpy; print(\"numpy\", numpy.__version__)"'
say "passed: a bare Debian 12 (bookworm minbase) installs, builds and runs gilscope, and installs the test tools"
