# Sourced by scripts/test.sh and .ci/run: `phase NAME COMMAND...` runs one phase and
# remembers how long it took; `phase_report` prints every phase's time, so whoever reads
# CI's log sees where its minutes go (CI stops a run at 90 minutes).
PHASE_NAMES=()
PHASE_SECONDS=()
phase() {
    local name=$1 t0=$SECONDS rc=0
    shift
    echo "==== phase: $name"
    "$@" || rc=$? # also when called from an `if`, where set -e does not apply
    PHASE_NAMES+=("$name")
    PHASE_SECONDS+=($((SECONDS - t0)))
    echo "==== phase: $name: $([ $rc -eq 0 ] && echo done || echo "FAILED ($rc)") in $((SECONDS - t0)) s"
    return $rc
}
phase_report() {
    local title=$1 i total=0
    echo "$title, phase by phase:"
    for i in "${!PHASE_NAMES[@]}"; do
        printf '  %6d s  %s\n' "${PHASE_SECONDS[$i]}" "${PHASE_NAMES[$i]}"
        total=$((total + PHASE_SECONDS[i]))
    done
    printf '  %6d s  total\n' "$total"
}
# The ten slowest tests of a ctest run, from the output it printed (ctest --output-log).
slowest_tests() {
    local log=$1
    echo "The ten slowest tests ($log):"
    grep -E 'Test +#[0-9]+: .* sec$' "$log" |
        sed -E 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/' |
        sort -rn | head -n 10 | awk '{printf "  %8.1f s  %s\n", $1, $2}'
}
