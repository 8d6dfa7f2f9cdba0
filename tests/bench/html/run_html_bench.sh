#!/usr/bin/env bash
# The HTML flame graph against CPython 3.15's, side by side (issue 19). Not pass/fail.
#   tests/bench/html/run_html_bench.sh [BUILD_DIR] [RUNS]
# 1. Writing a flame graph of a 10M-sample .bin: `gilscope replay --flamegraph` (median of
#    RUNS) and `python3.15 -m profiling.sampling replay --flamegraph` (once: it takes
#    minutes) on the same file: wall time, samples/s, peak RSS, page size.
# 2. The 100,000-stack page in headless Chromium: page-side time from navigation to a
#    drawn page, and time per zoom (the page's own zoom over the 40 widest frames and
#    back; CPython's through its chart's zoomTo, which then animates for 300 ms), medians
#    of RUNS page loads. CPython's page is a copy with cpython_probe.html added.
# CPython runs in the sid chroot (scripts/setup-python-chroot.sh), so the files live there.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD="${1:-build/release}"
RUNS="${2:-3}"
CHROOT="${GILSCOPE_CHROOT_DIR:-/var/cache/gilscope/sid-python}"
GILSCOPE="$BUILD/app/gilscope"
HERE=tests/bench/html
if [ ! -x "$CHROOT/usr/bin/python3.15" ] || ! command -v chromium >/dev/null; then
    echo "bench_html: needs the sid chroot's python3.15 and chromium (scripts/install-deps.sh --test)" >&2
    exit 1
fi
DIR=$(mktemp -d "$CHROOT/tmp/gilscope-html-bench.XXXXXX")
INSIDE="/tmp/$(basename "$DIR")"
PROFILE=$(mktemp -d)
trap 'rm -rf "$DIR" "$PROFILE"' EXIT
"$BUILD/tests/bench/html/bench_html_recordings" "$DIR"

median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "nan")}'; }
# timed OUT_PREFIX COMMAND...: appends "wall_s rss_kb" to OUT_PREFIX.times
timed() {
    local out=$1
    shift
    /usr/bin/time -f "%e %M" -o "$out.one" "$@" >/dev/null 2>&1
    cat "$out.one" >>"$out.times"
}
# python3.15 in the chroot, with /proc mounted privately (a command, so `time` can run it).
cpython=(unshare --mount --propagation private sh -c
    "mount -t proc proc '$CHROOT/proc' && exec chroot '$CHROOT' python3.15 \"\$@\"" sh)
report_write() { # NAME TIMES_FILE PAGE
    local wall rss
    wall=$(awk '{print $1}' "$2" | median)
    rss=$(awk '{print $2}' "$2" | median)
    awk -v n="$1" -v w="$wall" -v r="$rss" -v s="$(stat -c %s "$3")" 'BEGIN {
        printf "  %-34s %7.2f s  %6.2f M samples/s  peak RSS %5.0f MB  page %6.2f MB\n",
            n, w, 10 / w, r / 1024, s / 1048576 }'
}

echo "== writing a flame graph of a 10M-sample .bin (8 threads, 3000 call paths)"
for _ in $(seq "$RUNS"); do
    timed "$DIR/ours" "$GILSCOPE" replay --flamegraph -o "$DIR/big-ours.html" "$DIR/big.bin"
done
report_write "gilscope replay --flamegraph" "$DIR/ours.times" "$DIR/big-ours.html"
timed "$DIR/cpython" "${cpython[@]}" -m profiling.sampling replay --flamegraph \
    -o "$INSIDE/big-cpython.html" "$INSIDE/big.bin"
report_write "CPython 3.15 replay --flamegraph" "$DIR/cpython.times" "$DIR/big-cpython.html"

echo "== the 100,000-stack page in headless Chromium (page-side, medians of $RUNS loads)"
"$GILSCOPE" replay --flamegraph -o "$DIR/wide-ours.html" "$DIR/wide.bin" >/dev/null 2>&1
"${cpython[@]}" -m profiling.sampling replay --flamegraph \
    -o "$INSIDE/wide-cpython.html" "$INSIDE/wide.bin" >/dev/null 2>&1
python3 - "$DIR/wide-cpython.html" "$HERE/cpython_probe.html" "$DIR/wide-cpython-probe.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
probe = open(sys.argv[2], encoding="utf-8").read()
at = page.rindex("</body>")
open(sys.argv[3], "w", encoding="utf-8").write(page[:at] + probe + page[at:])
PY
measure_page() { # NAME URL ELEMENT_ID
    : >"$DIR/page.txt"
    for _ in $(seq "$RUNS"); do
        chromium --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$PROFILE" \
            --proxy-server=http://127.0.0.1:9 --dump-dom "$2" 2>/dev/null |
            grep -o "<p id=\"$3\"[^>]*>" >>"$DIR/page.txt" || true
    done
    attr() { grep -o "$1=\"[^\"]*\"" "$DIR/page.txt" | sed 's/.*="//; s/"//' | median; }
    printf "  %-34s %7s frames  ready %7s ms  zoom %6s ms (slowest %s ms)\n" "$1" \
        "$(attr data-frames)" "$(attr data-load-ms)" "$(attr data-zoom-ms)" "$(attr data-zoom-max-ms)"
}
measure_page "gilscope (canvas)" "file://$DIR/wide-ours.html#bench" status
measure_page "CPython 3.15 (d3 SVG, +300 ms anim.)" \
    "file://$DIR/wide-cpython-probe.html" gs-bench
echo "  (CPython's page leaves out frames under 0.1 % of the samples; gilscope's keeps every frame)"
