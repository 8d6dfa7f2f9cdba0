#!/usr/bin/env bash
# Runs every benchmark and prints its figures (medians). Not pass/fail.
#   tests/bench/run.sh [BUILD_DIR]      (default build/release)
# Builds the release preset's benchmark targets first. On a shared or busy machine the
# wall-clock figures move a lot: run it on an idle machine and compare side by side.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build/release}"
if [ "$BUILD" = build/release ]; then
    cmake --preset release >/dev/null
    cmake --build --preset release --target gilscope bench_remote_read bench_mode_filter bench_sampler \
        bench_thread_names gecko_bench bench_tach_replay bench_live_timeline bench_missed_samples bench_live_view \
        bench_gui_update bench_responsiveness bench_pprof bench_stack_chart bench_agent \
        bench_html_recordings
fi
uptime
echo "== issue 2: one full read of a 30-frame stack (µs, median)"
"$BUILD/tests/bench/remote/bench_remote_read" 20000
echo "== issue 12: --mode cpu on a mostly idle target (µs per all-threads read, median)"
"$BUILD/tests/bench/remote/bench_mode_filter" 5000
echo "== issue 17: thread names, sampler CPU per tick at 10 kHz with and without (µs, median)"
"$BUILD/tests/bench/sampler/bench_thread_names" 3 3
echo "== issue 4: Gecko collector ingest, export, RSS, cancel"
"$BUILD/tests/bench/gecko/gecko_bench"
echo "== issue 5: .bin replay to Gecko JSON"
"$BUILD/tests/bench/tach/bench_tach_replay" --runs 3
echo "== issue 22: pprof output (10M thread-samples) and its size against collapsed text"
"$BUILD/tests/bench/pprof/bench_pprof"
echo "== issue 22: the host agent recording 50 Python processes at 100 Hz (CPU %, RSS)"
"$BUILD/tests/bench/agent/bench_agent" 50 25
echo "== issue 21: --native-stacks, the target's slowdown and gilscope's CPU per sample"
tests/bench/native/bench_native_stacks.py --gilscope "$BUILD/app/gilscope"
echo "== issue 34: shares against the target's own timing, quiet and busy (BASELINE=old binary side by side)"
tests/bench/truth/bench_share_truth.py --gilscope "$BUILD/app/gilscope" ${BASELINE:+--baseline "$BASELINE"}
echo "== issue 36: wait reasons, the sampler's CPU and missed ticks (BASELINE=old binary side by side)"
tests/bench/wait/bench_wait_cost.py --gilscope "$BUILD/app/gilscope" ${BASELINE:+--baseline "$BASELINE"}
echo "== issue 37: free-threaded 3.13t against 3.13, gilscope's CPU per sample and missed ticks"
tests/bench/freethreaded/bench_free_threaded.py --gilscope "$BUILD/app/gilscope" || true
echo "== issue 49: thread states and parallelism on 3.13t, gilscope's CPU per sample (BASELINE=old binary side by side)"
tests/bench/freethreaded/bench_ft_cost.py --gilscope "$BUILD/app/gilscope" ${BASELINE:+--baseline "$BASELINE"} || true
echo "== issue 39: dump -a --locals on 50 threads x 30 frames, against dump -a and CPython 3.15's dump -a"
tests/bench/locals/bench_dump_locals.py --gilscope "$BUILD/app/gilscope" || true
echo "== issue 50: --label-from, gilscope's CPU per sample with two labels against none"
tests/bench/labels/bench_labels.py --gilscope "$BUILD/app/gilscope"
echo "== issue 39: an idle --control socket at 10 kHz, with against without"
tests/bench/control/bench_control_idle.py --gilscope "$BUILD/app/gilscope"
echo "== GUI live model"
"$BUILD/tests/bench/live/bench_live_timeline"
echo "== issue 18 (11): missed samples at 10 kHz x 8 threads, the views' readers against none"
"$BUILD/tests/bench/live/bench_missed_samples" --runs 5
echo "== issue 19: missed samples at 10 kHz x 8 threads, with --live (its model and ncurses view) against without"
"$BUILD/tests/bench/live/bench_live_view" --runs 5
echo "== issue 10: GUI-thread cost of one live update of the analysis views"
QT_QPA_PLATFORM=offscreen "$BUILD/tests/bench/analysis/bench_gui_update"
echo "== issue 17: stack chart, 1M samples in view (query on a worker, GUI frame)"
QT_QPA_PLATFORM=offscreen "$BUILD/tests/bench/analysis/bench_stack_chart"
echo "== issue 11: longest GUI stall while recording, opening and exporting"
QT_QPA_PLATFORM=offscreen "$BUILD/tests/bench/gui/bench_responsiveness" --runs 3
echo "== issue 19: HTML flame graph, gilscope and CPython 3.15 side by side"
tests/bench/html/run_html_bench.sh "$BUILD"
echo "== issues 3 and 23: sampler, CPython 3.15 and Austin side by side; many threads (BASELINE=old binary for before/after)"
tests/bench/sampler/run_sampler_bench.sh "$BUILD"
