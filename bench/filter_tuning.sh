#!/usr/bin/env bash
# The filter benchmark: tune the whole grid of `memtune filter
# --n 16M` with a cold compile cache, then again warm, and report the best
# configuration against the copy ceiling measured in the same run, the failures
# and both wall times.
#   bench/filter_tuning.sh <memtune binary> <output folder>
set -euo pipefail
memtune=${1:?memtune binary}
out=${2:?output folder}
mkdir -p "$out"
cache=$(mktemp -d)

start=$(date +%s%N)
"$memtune" filter --n 16M -q --cache-dir "$cache" --record "$out/filter_16M_record.json" \
  --json --top 1000 >"$out/filter_16M_cold.json"
cold_ms=$(( ($(date +%s%N) - start) / 1000000 ))
start=$(date +%s%N)
"$memtune" filter --n 16M -q --cache-dir "$cache" >"$out/filter_16M_warm.txt"
warm_ms=$(( ($(date +%s%N) - start) / 1000000 ))
rm -rf "$cache"
cat "$out/filter_16M_warm.txt"

python3 - "$out/filter_16M_cold.json" "$cold_ms" "$warm_ms" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
best = r["best"]
fails = {}
for f in r["failures"]:
    fails[f["status"]] = fails.get(f["status"], 0) + 1
print()
print("| filter --n 16M | value |")
print("|---|---|")
print(f"| GPU | {r['device']['name']} (sm_{r['device']['compute_capability'].replace('.', '')}, {r['device']['sm_count']} SMs) |")
print(f"| configurations evaluated | {r['evaluated']} ({r['pruned_by_constraints']} pruned before compiling) |")
print(f"| failures | {fails or 'none'} |")
print(f"| copy ceiling (same run) | {r['copy_ceiling']['gbps']:.0f} GB/s |")
print(f"| best | {' '.join(f'{k}={v}' for k, v in best['config'].items())} |")
print(f"| best time | {best['time_s']*1e6:.2f} us, {best['gbps']:.0f} GB/s = {100*best['fraction_of_ceiling']:.1f}% of ceiling |")
print(f"| whole grid, cold compile cache | {int(sys.argv[2])/1000:.2f} s |")
print(f"| whole grid, warm compile cache | {int(sys.argv[3])/1000:.2f} s |")
PY
