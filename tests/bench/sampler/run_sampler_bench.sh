#!/usr/bin/env bash
# Sampler benchmarks (figures, not pass/fail). Build the release preset first:
#   cmake --preset release && cmake --build --preset release --target gilscope bench_sampler
# then:
#   tests/bench/sampler/run_sampler_bench.sh [BUILD_DIR]        (default build/release)
#
# 1. bench_sampler on a 30-deep single-threaded target under 3.11 and 3.13: achieved
#    rate, errors, missed and the sampler thread's own CPU at 1k..1000k, and the highest
#    rate with < 1% errors. 2. The 8-thread target with -a. 3. compare_profilers.py:
#    CPython 3.15's profiler and Austin side by side with gilscope.
# Everything runs at nice -15 (root) so compile jobs on a shared machine disturb it
# less; the load average is printed with the figures.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD="${1:-build/release}"
BENCH="$BUILD/tests/bench/sampler/bench_sampler"
GILSCOPE="$BUILD/app/gilscope"
PYENV="${PYENV_ROOT:-$HOME/.pyenv}/versions"
NICE=(nice -n -15)
[ "$(id -u)" -eq 0 ] || NICE=()
DURATION="${BENCH_DURATION:-3}"
REPEAT="${BENCH_REPEAT:-3}"

# RT=1 (default): also measure with the sampler thread SCHED_FIFO (--rt-priority 1),
# which is what keeps ticks on time on a busy machine.
RT="${RT:-1}"
uptime
for rt in 0 $([ "$RT" = 1 ] && echo 1); do
    for py in "$PYENV"/3.11.*/bin/python3.11 "$PYENV"/3.13.*/bin/python3.13; do
        [ -x "$py" ] || { echo "skipped: $py not found"; continue; }
        "${NICE[@]}" "$BENCH" --python "$py" --script tests/targets/deep30.py --rt "$rt" \
            --rates 1k,10k,20k,50k,100k,200k,1000k --duration "$DURATION" --repeat "$REPEAT"
        echo
    done
    py=$(ls "$PYENV"/3.11.*/bin/python3.11 | head -1)
    "${NICE[@]}" "$BENCH" --python "$py" --script tests/targets/eight_threads.py -a --rt "$rt" \
        --rates 1k,10k,50k --duration "$DURATION" --repeat "$REPEAT"
    echo
done
# BASELINE=path/to/older/gilscope adds it beside (issue 23's before/after, parts C and D).
"${NICE[@]}" python3 tests/bench/sampler/compare_profilers.py --gilscope "$GILSCOPE" \
    --duration 5 --repeat "$REPEAT" ${BASELINE:+--baseline "$BASELINE"}
