#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build, run the GPU test suite, the example
# application, the filter benchmark, the catalogue benchmark (aos_soa, matvec
# against cuBLAS, fdtd) and, where ncu exists, the filter bank-conflict check;
# print a short table last.
#   scripts/gpu_check.sh [build-dir]
# Logs and JSON land in $OUT (or ./gpu-check-out).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-gpu-check-out}
mkdir -p "$out"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
# Only what runs here: the CPU suites (every candidate compiled with NVRTC) belong to scripts/test.sh.
cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_gpu_tests memtune_filter_app memtune_model_validation \
  >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }

echo "== GPU tests"
"$build/tests/memtune_gpu_tests" >"$out/gpu_tests.log" 2>&1
gpu_status=$?
tail -4 "$out/gpu_tests.log"

echo "== example application (tunes on first start, loads the profile on the second)"
profile="$out/filter_app.memtune.json"
rm -f "$profile"
"$build/examples/memtune_filter_app" 4194304 "$profile" | tee "$out/example.log"
app_first=${PIPESTATUS[0]}
"$build/examples/memtune_filter_app" 4194304 "$profile" | tee -a "$out/example.log"
app_second=${PIPESTATUS[0]}

echo "== filter benchmark"
bench/filter_tuning.sh "$build/cli/memtune" "$out" >"$out/bench.txt"
bench_status=$?
grep -v '^|' "$out/bench.txt"

echo "== catalogue benchmark (whole grids at the issues' sizes)"
bench/catalogue_tuning.sh "$build/cli/memtune" "$out/catalogue" >"$out/catalogue.txt" 2>&1
grep '^==' "$out/catalogue.txt"

echo "== probes (calibrated profile of this GPU) and the model against this run's recordings"
"$build/cli/memtune" probe --save-target "$out/probed_target.json" --json "$out/probe.json" --record "$out/probe-record" \
  >"$out/probe.txt" 2>&1
probe_status=$?
head -1 "$out/probe.txt"
grep -A3 '^L2 read\|^block launch' "$out/probe.txt" | grep -v '^--' || true
# The probe spaces measured a second time: how well one run ranks the other is
# the most any model can score against one run (the noise ceiling).
"$build/cli/memtune" probe --only coalescing,bank --record "$out/probe-repeat" >"$out/probe_repeat.txt" 2>&1
recordings=("$out/filter_16M_record.json" "$out/probe-record"/*.json "$out/catalogue"/aos_soa*_record.json)
"$build/bench/model/memtune_model_validation" "${recordings[@]}" --target-file "$out/probed_target.json" \
  --dump "$out/model_validation.csv" >"$out/model_validation.txt" 2>&1
cat "$out/model_validation.txt"
probe_recordings=("$out/probe-record"/*.json)
probe_repeats=()
for r in "${probe_recordings[@]}"; do probe_repeats+=("$out/probe-repeat/$(basename "$r")"); done
"$build/bench/model/memtune_model_validation" "${probe_recordings[@]}" --target-file "$out/probed_target.json" \
  --repeat "${probe_repeats[@]}" >"$out/probe_repeat_validation.txt" 2>&1
cat "$out/probe_repeat_validation.txt"

echo "== measured Bayesian search with the model prior (20 evaluations) against this check's whole grids"
"$build/cli/memtune" filter --n 16M --strategy bayes --budget 20 --json -q >"$out/bayes_filter.json" 2>"$out/bayes_filter.err"
"$build/cli/memtune" matvec --rows 8192 --cols 8192 --strategy bayes --budget 20 --json -q \
  >"$out/bayes_matvec_col.json" 2>"$out/bayes_matvec_col.err"
bayes_line=$(python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
parts = []
for name, grid in (("filter", "filter_16M_cold.json"), ("matvec_col", "catalogue/matvec_col.json")):
    try:
        b = json.load(open(os.path.join(out, f"bayes_{name}.json")))
        g = json.load(open(os.path.join(out, grid)))
        tb, tg = b["best"]["time_s"], g["best"]["time_s"]
        parts.append(f"{name}: {tb * 1e6:.1f} us after {b['evaluated']} evaluations, prior {b.get('search_prior', '?')}; "
                     f"grid best {tg * 1e6:.1f} us ({100 * (tb / tg - 1):+.1f}%, separate runs)")
    except Exception as e:
        parts.append(f"{name}: no result ({e})")
print("; ".join(parts))
PY
)
echo "$bayes_line"

ncu_line=""
ncu_space_line=""
if command -v ncu >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ncu ]; then
  echo "== filter shared-memory wavefronts: model vs ncu"
  scripts/filter_ncu_validation.sh "$build" "$out/filter-ncu" >"$out/filter_ncu.txt" 2>&1
  grep -v '^$' "$out/filter_ncu.txt" | tail -14
  ncu_line=$(tail -1 "$out/filter_ncu.txt")
  echo "== filter bank conflicts: model vs ncu's hardware counters, every configuration, every launch"
  scripts/filter_ncu_space.sh "$build" "$out/filter-ncu-space" >"$out/filter_ncu_space.txt" 2>&1
  tail -3 "$out/filter_ncu_space.txt"
  ncu_space_line=$(grep -A1 '^filter configurations' "$out/filter_ncu_space.txt" | tr '\n' ' ')
fi

echo
echo "| GPU check | result |"
echo "|---|---|"
echo "| GPU tests | $(grep -E 'test cases' "$out/gpu_tests.log" | sed 's/\[doctest\] //') |"
echo "| example app (tune, then load) | exit $app_first, exit $app_second: $(grep -c 'configuration (profile' "$out/example.log") load(s) from profile |"
echo "| memtune probe --save-target | exit $probe_status; $(grep -c ' yes$\| yes ' "$out/probe.txt") verified rows |"
grep '^|' "$out/bench.txt" | grep -v '^| check\|^|---' || true
[ -n "$ncu_line" ] && echo "| filter bank model vs ncu | $ncu_line |"
[ -n "$ncu_space_line" ] && echo "| filter bank model vs ncu hardware counters, whole space | $ncu_space_line |"
echo "| measured bayes + model prior, budget 20 | $bayes_line |"
echo "| model vs this run (Spearman; model's pick vs best), calibrated profile | $(awk 'NR > 1 { n = split($1, p, "/"); sub(/_record.json|.json/, "", p[n]); printf "%s %s (%s); ", p[n], $4, $7 }' "$out/model_validation.txt") |"
echo "| probe spaces measured twice: Spearman model vs run 1; run 2 vs run 1 (noise ceiling) | $(awk 'NR > 1 { n = split($1, p, "/"); sub(/.json/, "", p[n]); printf "%s %s; %s. ", p[n], $4, $8 }' "$out/probe_repeat_validation.txt") |"
echo
grep '^|' "$out/catalogue.txt" || true
[ "$gpu_status" -eq 0 ] && [ "$probe_status" -eq 0 ] && [ "$app_first" -eq 0 ] && [ "$app_second" -eq 0 ] && [ "$bench_status" -eq 0 ]
