#!/usr/bin/env bash
# Regenerates core/gecko/opcode_table_3_N.inc from each released interpreter's own
# opcode modules (pyenv 3.8-3.13, the sid chroot's 3.14 and 3.15). Commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
CHROOT="${GILSCOPE_CHROOT_DIR:-/var/cache/gilscope/sid-python}"
gen() { # minor, command...
    local minor=$1
    shift
    "$@" - <scripts/gen_opcode_table.py >"core/gecko/opcode_table_3_$minor.inc"
    head -1 "core/gecko/opcode_table_3_$minor.inc"
}
for minor in 8 9 10 11 12 13; do
    py=$(ls -d /root/.pyenv/versions/3.$minor.*/bin/python3 | sort -V | tail -1)
    gen $minor "$py"
done
for minor in 14 15; do
    gen $minor chroot "$CHROOT" python3.$minor
done
