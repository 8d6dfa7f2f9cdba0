#!/usr/bin/env bash
# Sets up, once, a Debian sid minbase chroot holding python3.14 and python3.15, so
# the tests can profile the newest CPython releases that bookworm does not ship; then
# builds, once, free-threaded 3.13t, 3.14t and 3.15t inside it (scripts/lib/build-free-threaded.sh).
#
#   scripts/setup-python-chroot.sh          # build if missing, else a fast no-op
#   GILSCOPE_CHROOT_DIR=/somewhere scripts/setup-python-chroot.sh
#
# The chroot lives outside the repo (default /var/cache/gilscope/sid-python). It is
# built in a temporary directory beside the destination and renamed into place, so
# an interrupted run never leaves a half-made chroot behind. The stamp file
# (.gilscope-stamp) lists the installed interpreters; tests read it.
set -euo pipefail

DEST="${GILSCOPE_CHROOT_DIR:-/var/cache/gilscope/sid-python}"
STAMP="$DEST/.gilscope-stamp"
VERSIONS=(3.14 3.15)

die() {
    echo "setup-python-chroot: error: $*" >&2
    exit 1
}
say() { echo "setup-python-chroot: $*"; }

# Free-threaded builds are not part of the required matrix: when sid's source cannot be
# had (its mirror may serve binaries only), say which step failed and go on; their tests
# then skip. GILSCOPE_REQUIRE_FREE_THREADED=1 makes that an error.
free_threaded() {
    if ! (
        # shellcheck source=lib/build-free-threaded.sh
        source "$(dirname "$0")/lib/build-free-threaded.sh"
        build_free_threaded "$DEST"
    ); then
        echo "setup-python-chroot: warning: some free-threaded interpreters are not built (steps above);" \
            "their tests skip (3.13t is in CI's required matrix)" >&2
        [[ "${GILSCOPE_REQUIRE_FREE_THREADED:-}" == 1 ]] && exit 1
    fi
    return 0
}

if [[ -f "$STAMP" ]]; then
    say "already set up in $DEST:"
    sed 's/^/  /' "$STAMP"
    # A root directory is 0755: targets that run as another user inside it (the hostile-
    # target tests) must reach its /usr. mktemp made the first chroots 0700.
    chmod 755 "$DEST"
    free_threaded
    exit 0
fi

[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap and chroot need it); try: sudo $0"
command -v debootstrap >/dev/null || die "debootstrap is not installed; run: apt-get install debootstrap"

# shellcheck source=lib/debian-mirror.sh
source "$(dirname "$0")/lib/debian-mirror.sh"
MIRROR="${GILSCOPE_DEBIAN_MIRROR:-$(mirror_from_config)}"

PARENT=$(dirname "$DEST")
mkdir -p "$PARENT" || die "cannot create $PARENT"
WORK=$(mktemp -d "$PARENT/.sid-python.build.XXXXXX") || die "cannot create a temp dir in $PARENT"
cleanup() {
    # Unmount anything left mounted inside the half-built tree before deleting it.
    grep -F " $WORK/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
    rm -rf --one-file-system "$WORK"
}
trap cleanup EXIT

# bookworm's keyring may predate the keys sid is signed with; prefer the newest
# keyring on the machine and name it explicitly.
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
say "bootstrapping Debian sid (minbase) from $MIRROR into $WORK (about a minute)"
if ! debootstrap --variant=minbase --keyring="$KEYRING" sid "$WORK" "$MIRROR" >"$WORK.log" 2>&1; then
    tail -n 20 "$WORK.log" >&2
    rm -f "$WORK.log"
    die "debootstrap failed (log above); check network access to $MIRROR"
fi
rm -f "$WORK.log"

in_chroot() { chroot "$WORK" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }

# Package names: pythonX.Y is the interpreter; the profiling.sampling package and
# its _remote_debugging extension may live in a stdlib package, so ask apt which
# candidates exist and install those.
PACKAGES=()
for v in "${VERSIONS[@]}"; do
    for p in "python$v" "libpython$v-stdlib"; do
        if in_chroot apt-cache show "$p" >/dev/null 2>&1; then
            PACKAGES+=("$p")
        fi
    done
    [[ " ${PACKAGES[*]} " == *" python$v "* ]] || die "Debian sid has no package python$v (apt-cache show python$v failed)"
done
say "installing ${PACKAGES[*]}"
if ! in_chroot apt-get install -y --no-install-recommends "${PACKAGES[@]}" >"$WORK.log" 2>&1; then
    tail -n 20 "$WORK.log" >&2
    rm -f "$WORK.log"
    die "apt-get install in the chroot failed (log above)"
fi
rm -f "$WORK.log"
in_chroot apt-get clean >/dev/null 2>&1 || true

# Check each interpreter really runs, and that 3.15's sampling profiler is present
# (the tests compare against it).
: >"$WORK/.gilscope-stamp.tmp"
for v in "${VERSIONS[@]}"; do
    full=$(in_chroot "python$v" -c 'import platform; print(platform.python_version())') ||
        die "python$v does not run inside the chroot"
    echo "python$v $full" >>"$WORK/.gilscope-stamp.tmp"
done
if ! in_chroot python3.15 -m profiling.sampling --help >/dev/null 2>&1; then
    die "python3.15 -m profiling.sampling --help fails in the chroot; the profiler module is missing"
fi

mv "$WORK/.gilscope-stamp.tmp" "$WORK/.gilscope-stamp"
if [[ -e "$DEST" ]]; then
    # A previous attempt without a stamp: replace it.
    rm -rf --one-file-system "$DEST"
fi
chmod 755 "$WORK" # mktemp -d makes 0700; a root directory is 0755
mv "$WORK" "$DEST"
trap - EXIT
say "done: $DEST ($(du -sh "$DEST" | cut -f1))"
sed 's/^/  /' "$STAMP"
free_threaded
