#!/usr/bin/env bash
# Second command of README.md (and what .ci/run runs): build everything and run the
# whole test suite: release build + CTest, ASan/UBSan build + unit tests, ThreadSanitizer
# build + unit and recording GUI tests, and a short libFuzzer run.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/install-deps.sh
# One compiler cache for every checkout: paths below this one are hashed relative to it,
# so a fresh clone in another folder (CI) reuses the last run's objects.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"

# CPython 3.14/3.15 from Debian sid, in a cached chroot outside the repo.
if ! scripts/setup-python-chroot.sh; then
    echo "warning: the Python 3.14/3.15 chroot could not be set up; those interpreters will not be tested" >&2
fi

cmake --preset release
cmake --build --preset release
ctest --preset release -j2
# Which interpreters the real-process tests ran against (each test logs its own list).
echo "Python interpreters tested:"
grep -h "initTestCase() tested:" build/release/Testing/Temporary/LastTest.log | sed "s/.*tested: /  /" | sort -u || true

# ASan/UBSan over the unit tests (core logic, formats, collectors, sampler).
cmake --preset asan
cmake --build --preset asan --target unit_tests
ctest --preset asan -j2 -L unit

# ThreadSanitizer over the unit tests and the GUI suites whose threads record and export
# (label tsan). Any report fails the run (TSAN_OPTIONS in the preset: halt_on_error).
# ASLR off: GCC 12's TSan cannot map its shadow with the kernel's 32-bit mmap randomness.
# Qt is not instrumented: accesses inside its libraries are ignored (the preset's
# ignore_noninstrumented_modules), and a thread that spawned a process through QProcess
# (vfork-style) is no longer watched, so suites put their race tests first.
cmake --preset tsan
cmake --build --preset tsan --target tsan_tests
setarch "$(uname -m)" -R ctest --preset tsan -j2 -L 'unit|tsan'

if [ -x tests/fuzz/run.sh ]; then
    cmake --preset fuzz
    cmake --build --preset fuzz
    tests/fuzz/run.sh build/fuzz "${GILSCOPE_FUZZ_SECONDS:-40}"
fi
echo "test.sh: done in $(( $(date +%s) - start )) s"
