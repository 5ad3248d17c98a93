#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build, run the GPU tests and the filter
# benchmark (cold and warm compile cache), and print a short table last.
#   scripts/gpu_check.sh [build-dir]
# Logs and JSON land in $OUT (or ./gpu-check-out) for later reading.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-gpu-check-out}
mkdir -p "$out"
jobs=$(nproc)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$build" -j "$jobs" >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }

echo "== GPU tests"
gpu_status=0
"$build/tests/memtune_gpu_tests" 2>&1 | tee "$out/gpu_tests.log" | tail -5 || gpu_status=$?

echo "== filter --n 16M, cold compile cache"
cache=$(mktemp -d)
start=$(date +%s%N)
"$build/cli/memtune" filter --n 16M -q --cache-dir "$cache" --record "$out/filter_16M_record.json" \
  --json --top 1000 >"$out/filter_16M_cold.json"
cold=$(( ($(date +%s%N) - start) / 1000000 ))
echo "== filter --n 16M, warm compile cache"
start=$(date +%s%N)
"$build/cli/memtune" filter --n 16M -q --cache-dir "$cache" | tee "$out/filter_16M_warm.txt"
warm=$(( ($(date +%s%N) - start) / 1000000 ))

python3 - "$out/filter_16M_cold.json" "$cold" "$warm" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
best = r["best"]
print()
print("| check | value |")
print("|---|---|")
print(f"| GPU | {r['device']['name']} (sm_{r['device']['compute_capability'].replace('.', '')}, {r['device']['sm_count']} SMs) |")
print(f"| configurations evaluated | {r['evaluated']} ({r['pruned_by_constraints']} pruned before compiling) |")
fails = {}
for f in r["failures"]:
    fails[f["status"]] = fails.get(f["status"], 0) + 1
print(f"| failures | {fails or 'none'} |")
print(f"| copy ceiling | {r['copy_ceiling']['gbps']:.0f} GB/s |")
print(f"| best | {best['config']} |")
print(f"| best time | {best['time_s']*1e6:.2f} us, {best['gbps']:.0f} GB/s = {100*best['fraction_of_ceiling']:.1f}% of ceiling |")
print(f"| whole grid, cold cache (process wall) | {int(sys.argv[2])/1000:.2f} s (tuner {r['wall_seconds']:.2f} s) |")
print(f"| whole grid, warm cache (process wall) | {int(sys.argv[3])/1000:.2f} s |")
PY
exit $gpu_status
