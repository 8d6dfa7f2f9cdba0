#!/usr/bin/env bash
# Installs the Debian 12 packages gilscope needs, if any are missing.
#
#   scripts/install-deps.sh          what scripts/run.sh needs: build and run gilscope
#   scripts/install-deps.sh --test   that, plus what the test suite, the sanitizer and
#                                    fuzz builds and the benchmarks add (scripts/test.sh)
#
# A user who only runs gilscope installs no test tools. scripts/check-fresh-machine.sh
# proves both lists on a bare `debootstrap --variant=minbase bookworm` system, so a package
# a developer happens to have cannot hide here, and checks that the first list pulls in
# none of the test tools.
#
# Every name is a real package (not a virtual one), so the dpkg check below finds it once
# installed and a second run needs no network.
set -euo pipefail

run_packages=(
    # toolchain
    build-essential cmake ninja-build pkg-config
    # Qt 6 (qt6-base-dev includes Qt6DBus, for "Show in folder"). qt6-charts-dev's CMake
    # config needs Qt6OpenGL, which it does not depend on.
    qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev libgl-dev
    # the SVG icon's image plugin; the local server behind "Open in Firefox Profiler"
    # (qt6-httpserver-dev's CMake config needs Qt6WebSockets)
    libqt6svg6 qt6-httpserver-dev qt6-websockets-dev
    # formats (pprof output: protobuf's compiler and library, zlib for gzip)
    nlohmann-json3-dev libzstd-dev libprotobuf-dev protobuf-compiler zlib1g-dev
    # --native-stacks: elfutils' libdw/libdwfl unwinds and names the target's C frames
    libdw-dev
    # the --live terminal view (tui/): ncurses, wide-character build
    libncurses-dev
    # the man page (gilscope.1), made from gilscope's own --help
    help2man
    # `gilscope run`'s default interpreter, and a font for the window's text (both come
    # with the packages above anyway)
    python3 fonts-dejavu-core
)

test_packages=(
    # Go's own pprof (`go tool pprof`) reads the --pprof files
    golang-go
    # the HTML outputs, rendered offline in headless Chromium
    chromium
    # debootstrap + keyring for the Python 3.14/3.15 chroot and the fresh-machine check;
    # a virtual X server for the GUI tests
    debootstrap debian-archive-keyring xvfb xauth
    # dbus-daemon: a private session bus for the Show in folder test
    dbus
    # tests: a terminal for the --live view (test_live reads its screen through tmux)
    tmux
    # ASan/UBSan and libFuzzer builds; the style test (the tree follows .clang-format)
    clang libclang-rt-14-dev clang-format
    # numpy for --native-stacks' numpy/BLAS test (with Debian's own python3.11)
    python3-numpy
    # compiler cache: a warm scripts/test.sh (CI's next run, a second checkout) rebuilds little
    ccache
)

packages=("${run_packages[@]}")
case "${1:-}" in
"") ;;
--test) packages+=("${test_packages[@]}") ;;
--list-test) # the test tools only, one a line (check-fresh-machine.sh)
    printf '%s\n' "${test_packages[@]}"
    exit 0
    ;;
*)
    echo "usage: scripts/install-deps.sh [--test]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
        echo "install-deps: error: these packages are missing and this is not root (no sudo either): ${missing[*]}" >&2
        exit 1
    }
    SUDO="sudo"
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
