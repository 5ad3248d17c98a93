#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan in
# their own build folder, then runs each for a while from its seeds.
#   scripts/fuzz.sh                      every harness for 10 s (what scripts/test.sh runs)
#   scripts/fuzz.sh --minutes 10         every harness for 10 minutes, one after the other
#   scripts/fuzz.sh --seconds 60 recording profile_store
# Prints per harness: seconds, executions, result; exits 1 if any harness
# found a crash, a hang, a leak or a sanitizer report (the input is kept in
# $build/fuzz-artifacts/, the log in $build/fuzz-logs/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_FUZZ_BUILD_DIR:-build-fuzz}
seconds=10
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) names+=("$1"); shift ;;
  esac
done
cxx=${MEMTUNE_FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}
if [ -z "$cxx" ]; then
  echo "fuzz.sh: needs clang++ with libFuzzer (Debian: clang-14 libclang-rt-14-dev)" >&2
  exit 2
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_COMPILER="$cxx" "${launcher[@]}" \
    -DCUDAToolkit_ROOT=/usr/local/cuda -DMEMTUNE_ENABLE_FUZZING=ON -DMEMTUNE_ENABLE_TESTING=OFF \
    -DMEMTUNE_ENABLE_BENCH=OFF -DMEMTUNE_ENABLE_EXAMPLES=OFF -DMEMTUNE_ENABLE_INSTALL=OFF >/dev/null
else
  cmake "$build" >/dev/null # re-copies the seeds
fi
cmake --build "$build" -j "$(nproc)" --target memtune_fuzzers

if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(sed 's/^fuzz_//' "$build/tests/fuzz/fuzzers.txt")
fi
mkdir -p "$build/fuzz-logs" "$build/fuzz-artifacts"
status=0
passed=0
failed=0
report=()
for name in "${names[@]}"; do
  exe="$build/tests/fuzz/fuzz_$name"
  [ -x "$exe" ] || { echo "fuzz.sh: no harness '$name'" >&2; exit 2; }
  corpus="$build/fuzz-corpus/$name"
  mkdir -p "$corpus"
  log="$build/fuzz-logs/$name.log"
  # -timeout: an input taking longer is a hang; -rss_limit_mb: a blow-up is a finding too.
  # The working corpus comes first (new inputs land there), the seeds after it.
  result=ok
  "$exe" "$corpus" "$build/tests/fuzz/seeds/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$name-" >"$log" 2>&1 || { result=FOUND; status=1; }
  if [ "$result" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  report+=("$(printf '%-16s %8s s %12s executions  %s' "$name" "${took:-?}" "${runs:-?}" "$result")")
  if [ "$result" != ok ]; then
    echo "fuzz.sh: $name found something; the end of $log:" >&2
    tail -30 "$log" >&2
  fi
done
echo
echo "harness          seconds     executions  result"
printf '%s\n' "${report[@]}"
echo "fuzz: $passed passed, $failed failed"
exit $status
