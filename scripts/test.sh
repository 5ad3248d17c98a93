#!/usr/bin/env bash
# Builds (if needed) and runs every test suite. The GPU suite skips, and says
# so, on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure "$@"
