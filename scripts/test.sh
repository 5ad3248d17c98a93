#!/usr/bin/env bash
# Builds (if needed) and runs every test suite. The GPU suite skips, and says
# so, on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"

# A short libFuzzer run of every file reader (tests/fuzz): seconds per harness,
# in a build of its own (clang, ASan, UBSan), one harness per core at a time.
# MEMTUNE_FUZZ_SECONDS=0 skips it;
# scripts/fuzz.sh --minutes N runs longer.
fuzz_seconds=${MEMTUNE_FUZZ_SECONDS:-5}
if [ "$fuzz_seconds" != 0 ] && [ $# -eq 0 ]; then
  if command -v clang++-14 >/dev/null || command -v clang++ >/dev/null; then
    bash scripts/fuzz.sh --seconds "$fuzz_seconds" --jobs "$(nproc)"
  else
    echo "fuzz: skipped (no clang++ with libFuzzer: apt-get install clang-14 libclang-rt-14-dev)"
  fi
fi
