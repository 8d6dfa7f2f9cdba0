#!/usr/bin/env bash
# First command of README.md: install what is missing, build, start gilscope.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target gilscope
exec build/release/app/gilscope "$@"
