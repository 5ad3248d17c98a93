#!/usr/bin/env bash
# Builds (if needed) and runs every test suite. The GPU suite skips, and says
# so, on a machine without a GPU.
#
# Builds first, both of them: memtune (build/) and, where clang 14 with
# libFuzzer is installed, the fuzz harnesses (build-fuzz/: clang, ASan,
# UBSan). Then the tests: ctest, every case in parallel, and a short
# libFuzzer run of every file reader (tests/fuzz): seconds per harness, one
# harness per core at a time. MEMTUNE_FUZZ_SECONDS=0 skips the fuzzing (and
# its build); scripts/fuzz.sh --minutes N runs longer. The last line gives
# each phase's seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_BUILD_DIR:-build}
fuzz_seconds=${MEMTUNE_FUZZ_SECONDS:-5}
fuzz=false
if [ "$fuzz_seconds" != 0 ] && [ $# -eq 0 ]; then
  if command -v clang++-14 >/dev/null || command -v clang++ >/dev/null; then
    fuzz=true
  else
    echo "fuzz: skipped (no clang++ with libFuzzer: apt-get install clang-14 libclang-rt-14-dev)"
  fi
fi

started=$SECONDS
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build "$build" -j "$(nproc)"
built=$SECONDS
if $fuzz; then bash scripts/fuzz.sh --build-only; fi
fuzz_built=$SECONDS

ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
tested=$SECONDS
if $fuzz; then bash scripts/fuzz.sh --seconds "$fuzz_seconds" --jobs "$(nproc)"; fi
echo "test.sh: build $((built - started)) s, fuzz build $((fuzz_built - built)) s;" \
  "then ctest $((tested - fuzz_built)) s, fuzzing $((SECONDS - tested)) s"
