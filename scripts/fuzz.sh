#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz) with clang, ASan and UBSan in
# their own build folder, then runs each for a while from its seeds.
#   scripts/fuzz.sh                      every harness for 10 s (scripts/test.sh: 5 s each)
#   scripts/fuzz.sh --minutes 10         every harness for 10 minutes, one after the other
#   scripts/fuzz.sh --minutes 10 --jobs 2  two harnesses at a time
#   scripts/fuzz.sh --seconds 60 recording profile_store
#   scripts/fuzz.sh --build-only         only build them (scripts/test.sh builds before it tests)
# Prints per harness: seconds, executions, result; exits 1 if any harness
# found a crash, a hang, a leak or a sanitizer report (the input is kept in
# $build/fuzz-artifacts/, the log in $build/fuzz-logs/).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_FUZZ_BUILD_DIR:-build-fuzz}
seconds=10
jobs=1
build_only=false
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --build-only) build_only=true; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
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
$build_only && exit 0

if [ ${#names[@]} -eq 0 ]; then
  mapfile -t names < <(sed 's/^fuzz_//' "$build/tests/fuzz/fuzzers.txt")
fi
mkdir -p "$build/fuzz-logs" "$build/fuzz-artifacts"

# Runs one harness; its summary line goes to fuzz-logs/NAME.result.
run_one() {
  local name=$1 exe="$build/tests/fuzz/fuzz_$1" corpus="$build/fuzz-corpus/$1" log="$build/fuzz-logs/$1.log"
  mkdir -p "$corpus"
  # -timeout: an input taking longer is a hang; -rss_limit_mb: a blow-up is a finding too.
  # The working corpus comes first (new inputs land there), the seeds after it.
  local result=ok
  nice "$exe" "$corpus" "$build/tests/fuzz/seeds/$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$name-" >"$log" 2>&1 || result=FOUND
  local runs took
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(sed -n 's/.*Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  printf '%-16s %8s s %12s executions  %s\n' "$name" "${took:-?}" "${runs:-?}" "$result" >"$build/fuzz-logs/$name.result"
}

for name in "${names[@]}"; do
  [ -x "$build/tests/fuzz/fuzz_$name" ] || { echo "fuzz.sh: no harness '$name'" >&2; exit 2; }
  rm -f "$build/fuzz-logs/$name.result"
done
# At most $jobs harnesses at once: the machine is shared.
for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_one "$name" &
done
wait

status=0
passed=0
failed=0
echo
echo "harness          seconds     executions  result"
for name in "${names[@]}"; do
  line=$(cat "$build/fuzz-logs/$name.result" 2>/dev/null || echo "$name: no result")
  echo "$line"
  case "$line" in
    *" ok") passed=$((passed + 1)) ;;
    *)
      failed=$((failed + 1))
      status=1
      echo "fuzz.sh: $name found something; the end of $build/fuzz-logs/$name.log:" >&2
      tail -30 "$build/fuzz-logs/$name.log" >&2
      ;;
  esac
done
echo "fuzz: $passed passed, $failed failed"
exit $status
