#!/usr/bin/env bash
# Short libFuzzer runs for CI: tests/fuzz/run.sh BUILD_DIR SECONDS
#   BUILD_DIR  a fuzz-preset build (cmake --preset fuzz && cmake --build --preset fuzz)
#   SECONDS    time per target (30 in CI: nine targets, two at a time, about 150 s)
# Each fuzz_* target runs on a temporary corpus seeded from ../shared fixtures (.bin
# reader) or from the interpreters present (ELF images, _Py_DebugOffsets tables), under
# ASan/UBSan with an RSS limit, and the number of executions is printed. The remote
# parsers are fuzzed because a process we attach to can put anything in its memory.
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

# One target: seeds, a run of SECONDS_PER_TARGET, a summary line; fails on a crash or leak.
fuzz_one() {
    local target=$1 name corpus log artifacts execs status=0
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
    fuzz_elf_image)
        # Real ELF files (cut to -max_len by libFuzzer): a program and a libpython.
        for f in /usr/bin/true /root/.pyenv/versions/3.13.0/lib/libpython3.13.so.1.0 \
            /var/cache/gilscope/sid-python/usr/bin/python3.15; do
            [[ -f "$f" ]] && head -c 65536 "$f" >"$corpus/$(basename "$f")"
        done
        ;;
    fuzz_debug_offsets)
        # Py_Version, then the start of the .PyRuntime section (the _Py_DebugOffsets
        # table) of each 3.13+ interpreter present.
        for f in /root/.pyenv/versions/3.13.*/lib/libpython3.13.so.1.0 \
            /var/cache/gilscope/sid-python/usr/bin/python3.14 \
            /var/cache/gilscope/sid-python/usr/bin/python3.15; do
            [[ -f "$f" ]] || continue
            rt="$corpus/.rt"
            objcopy -O binary --only-section=.PyRuntime "$f" "$rt" 2>/dev/null || continue
            { dd if="$rt" bs=1 skip=8 count=4 status=none; head -c 1024 "$rt"; } >"$corpus/$(basename "$f").seed"
            rm -f "$rt"
        done
        ;;
    fuzz_syscall_record)
        # This machine's own records and socket tables, as the kernel prints them.
        for f in /proc/$$/task/*/syscall /proc/self/net/tcp /proc/self/net/tcp6 \
            /proc/self/net/unix; do
            [[ -r "$f" ]] && head -c 65536 "$f" >"$corpus/$(echo "$f" | tr / _)" 2>/dev/null || true
        done
        ;;
    esac
    [[ -n "$(ls "$corpus")" ]] || echo "run.sh: no seeds for $name here; starting from an empty corpus" >&2
    log="$corpus.log"
    echo "== $name: ${SECONDS_PER_TARGET}s, $(ls "$corpus" | wc -l) seeds"
    # A crashing input is kept under the build dir (libFuzzer's default is the current
    # directory, which put crash-* files in the checkout).
    artifacts="$BUILD_DIR/fuzz-artifacts"
    mkdir -p "$artifacts"
    if ! "$target" -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb=1024 -timeout=10 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
        "$corpus" >"$log" 2>&1; then
        status=1
        tail -n 60 "$log" >&2
        echo "run.sh: $name FAILED (crash or leak above; the input is in $artifacts)" >&2
    fi
    execs="$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')"
    echo "$name: ${execs:-?} executions in ${SECONDS_PER_TARGET}s"
    rm -rf "$corpus" "$log"
    trap - EXIT
    return $status
}

# The targets run side by side, one per core (each is single-threaded): the same time
# each, in a fraction of the wall time. Their reports follow in order.
status=0
jobs_max=$(nproc 2>/dev/null || echo 1)
out_dir=$(mktemp -d "${TMPDIR:-/tmp}/gilscope-fuzz-out-XXXXXX")
names=()
pids=()
for target in "${targets[@]}"; do
    [[ -x "$target" && -f "$target" ]] || continue
    while [[ $(jobs -rp | wc -l) -ge $jobs_max ]]; do wait -n || true; done
    name="$(basename "$target")"
    fuzz_one "$target" >"$out_dir/$name.out" 2>&1 &
    names+=("$name")
    pids+=($!)
done
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    cat "$out_dir/${names[$i]}.out"
done
rm -rf "$out_dir"
exit $status