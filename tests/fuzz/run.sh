#!/usr/bin/env bash
# Short libFuzzer runs for CI: tests/fuzz/run.sh BUILD_DIR SECONDS
#   BUILD_DIR  a fuzz-preset build (cmake --preset fuzz && cmake --build --preset fuzz)
#   SECONDS    time per target (about 60 in CI)
# Each fuzz_* target runs on a temporary corpus seeded from ../shared fixtures (when
# present), under ASan/UBSan with an RSS limit, and the number of executions is printed.
set -euo pipefail

BUILD_DIR="${1:?usage: tests/fuzz/run.sh BUILD_DIR SECONDS}"
SECONDS_PER_TARGET="${2:-60}"
SRC_DIR="$(cd "$(dirname "$0")/../.." && pwd)"
SHARED="$SRC_DIR/../shared"

targets=("$BUILD_DIR"/tests/fuzz/fuzz_*)
if [[ ! -x "${targets[0]}" ]]; then
    echo "run.sh: no fuzz targets in $BUILD_DIR/tests/fuzz (build with: cmake --preset fuzz && cmake --build --preset fuzz)" >&2
    exit 1
fi

status=0
for target in "${targets[@]}"; do
    [[ -x "$target" && -f "$target" ]] || continue
    name="$(basename "$target")"
    corpus="$(mktemp -d "${TMPDIR:-/tmp}/gilscope-fuzz-$name-XXXXXX")"
    trap 'rm -rf "$corpus"' EXIT
    case "$name" in
    fuzz_tach_reader)
        if [[ -d "$SHARED/fixtures/tach" ]]; then
            cp "$SHARED"/fixtures/tach/*.bin "$SHARED"/fixtures/tach/corrupt/*.bin "$corpus"/ 2>/dev/null || true
        else
            echo "run.sh: $SHARED/fixtures/tach is absent; starting $name from an empty corpus" >&2
        fi
        ;;
    esac
    log="$corpus.log"
    echo "== $name: ${SECONDS_PER_TARGET}s, $(ls "$corpus" | wc -l) seeds"
    if ! "$target" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=1024 -timeout=10 \
        -max_len=65536 -print_final_stats=1 "$corpus" >"$log" 2>&1; then
        status=1
        tail -n 60 "$log" >&2
        echo "run.sh: $name FAILED (crash or leak above)" >&2
    fi
    execs="$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')"
    echo "$name: ${execs:-?} executions in ${SECONDS_PER_TARGET}s"
    rm -rf "$corpus" "$log"
    trap - EXIT
done
exit $status
