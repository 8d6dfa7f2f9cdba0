#!/usr/bin/env bash
# Second command of README.md (and what .ci/run runs): build everything and run the
# whole test suite: release build + CTest, ASan/UBSan build + unit tests, ThreadSanitizer
# build + unit and recording GUI tests, and a short libFuzzer run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/phases.sh
source scripts/lib/phases.sh
phase "install the test tools" scripts/install-deps.sh --test # what scripts/run.sh needs, and the test tools
# One compiler cache for every checkout: paths below this one are hashed relative to it,
# so a fresh clone in another folder (CI) reuses the last run's objects.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"

# CI=true: a suite that skipped for want of an interpreter, ../shared, the chroot, root or
# dbus-daemon fails instead (tests/support/ci_requirements.h); outside CI they skip.
in_ci=false
case "${CI:-}" in true | TRUE | True | 1 | yes) in_ci=true ;; esac

# CPython 3.14/3.15 from Debian sid, in a cached chroot outside the repo.
if ! phase "the Python 3.14/3.15 chroot" scripts/setup-python-chroot.sh; then
    if $in_ci; then
        echo "test.sh: error: the Python 3.14/3.15 chroot could not be set up (CI needs it)" >&2
        exit 1
    fi
    echo "warning: the Python 3.14/3.15 chroot could not be set up; those interpreters will not be tested" >&2
fi

release_build() { cmake --preset release && cmake --build --preset release; }
phase "release build" release_build
phase "release suite (ctest -j2)" ctest --preset release -j2 --output-log build/release/ctest-output.log
# Which interpreters the real-process tests ran against (each test logs its own list),
# against the supported matrix: pyenv 3.8-3.13, Debian's static 3.11, the chroot's 3.14/3.15
# and free-threaded 3.13t.
tested=$(grep -h "initTestCase() tested:" build/release/Testing/Temporary/LastTest.log |
    sed "s/.*tested: *//; s/  .*//" | sort -u || true)
echo "Python interpreters tested:"
echo "${tested:-  (none)}" | sed "s/^/  /"
short=()
for want in "3.8. (pyenv)" "3.9. (pyenv)" "3.10. (pyenv)" "3.11. (pyenv)" "3.12. (pyenv)" \
    "3.13. (pyenv)" "3.11. (Debian static)" "3.14. (sid chroot)" "3.15. (sid chroot)"; do
    version=${want%% *} kind=${want#* }
    grep -qF -- "$kind" <<<"$(grep -F -- "$version" <<<"$tested")" || short+=("${version%.} $kind")
done
# Free-threaded 3.13t, built in the chroot from Debian's source (its label ends in "t").
grep -qE -- "^3\.13\.[0-9]+t \(sid chroot\)" <<<"$tested" || short+=("3.13t (sid chroot)")
if [ ${#short[@]} -gt 0 ]; then
    echo "Not tested (missing here): ${short[*]}"
    if $in_ci; then
        echo "test.sh: error: CI must test the whole interpreter matrix" >&2
        exit 1
    fi
fi

# ASan/UBSan over the unit tests (core logic, formats, collectors, sampler).
asan_build() { cmake --preset asan && cmake --build --preset asan --target unit_tests; }
phase "ASan/UBSan build" asan_build
phase "ASan/UBSan unit tests" ctest --preset asan -j2 -L unit --output-log build/asan/ctest-output.log

# ThreadSanitizer over the unit tests and the GUI suites whose threads record and export
# (label tsan). Any report fails the run (TSAN_OPTIONS in the preset: halt_on_error).
# ASLR off: GCC 12's TSan cannot map its shadow with the kernel's 32-bit mmap randomness.
# Qt is not instrumented: accesses inside its libraries are ignored (the preset's
# ignore_noninstrumented_modules), and a thread that spawned a process through QProcess
# (vfork-style) is no longer watched, so suites put their race tests first.
tsan_build() { cmake --preset tsan && cmake --build --preset tsan --target tsan_tests; }
phase "TSan build" tsan_build
phase "TSan unit and GUI tests" setarch "$(uname -m)" -R ctest --preset tsan -j2 -L 'unit|tsan' \
    --output-log build/tsan/ctest-output.log

if [ -x tests/fuzz/run.sh ]; then
    fuzz_build() { cmake --preset fuzz && cmake --build --preset fuzz; }
    phase "fuzz build" fuzz_build
    phase "fuzzers (${GILSCOPE_FUZZ_SECONDS:-30} s each)" tests/fuzz/run.sh build/fuzz "${GILSCOPE_FUZZ_SECONDS:-30}"
fi
slowest_tests build/release/ctest-output.log
phase_report "test.sh"
