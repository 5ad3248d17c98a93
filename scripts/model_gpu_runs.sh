#!/usr/bin/env bash
# The GPU runs issue 14's model work needs, in one go, on an H100 or an H200:
#   1. every template's whole grid at its default size, recorded twice (the
#      second run is the noise ceiling: how well one measurement ranks the
#      other, memtune_model_validation --repeat);
#   2. measured bayes with the transferred prior (--from the H100 recording of
#      the same space, bench/data) on filter and fdtd: how few evaluations a
#      second GPU costs;
#   3. the model and the transfer against the new recordings
#      (memtune_gpu_validation over bench/data plus this run's).
# Recordings are named like bench/data's (<gpu>_<space>.json); copy
# $OUT/<gpu>_*.json into bench/data to keep them. Prints a short table last.
#   scripts/model_gpu_runs.sh [build-dir]       (GPU=h100|h200 to force the prefix)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-model-gpu-out}
mkdir -p "$out/run1" "$out/run2" "$out/bayes"

name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $name" | tee "$out/gpu.txt"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv >>"$out/gpu.txt"
case "${GPU:-$name}" in
  *H200*|h200) gpu=h200; target=h200 ;;
  *H100*|h100) gpu=h100; target=h100-sxm ;;
  *) echo "neither an H100 nor an H200: set GPU=h100 or GPU=h200"; exit 2 ;;
esac

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_model_validation memtune_gpu_validation \
  >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
memtune="$build/cli/memtune"

# The spaces of bench/data, at each template's default size.
spaces=(aos_soa_read_16M aos_soa_write_16M fdtd_512x512x256_r4 filter_16M matvec_col_8192 matvec_row_8192)
args_of() {
  case $1 in
    aos_soa_read_16M) echo "aos_soa --n 16M --op read" ;;
    aos_soa_write_16M) echo "aos_soa --n 16M --op write" ;;
    fdtd_512x512x256_r4) echo "fdtd --nx 512 --ny 512 --nz 256 --radius 4" ;;
    filter_16M) echo "filter --n 16M" ;;
    matvec_col_8192) echo "matvec --rows 8192 --cols 8192 --layout col" ;;
    matvec_row_8192) echo "matvec --rows 8192 --cols 8192 --layout row" ;;
  esac
}

echo "== 1. whole grids, twice"
for run in run1 run2; do
  for s in "${spaces[@]}"; do
    start=$(date +%s)
    # shellcheck disable=SC2046
    "$memtune" $(args_of "$s") -q --record "$out/$run/${gpu}_$s.json" >"$out/$run/${gpu}_$s.txt" 2>&1
    echo "$run $s: exit $? in $(( $(date +%s) - start )) s"
  done
done
cp "$out"/run1/"${gpu}"_*.json "$out"/

echo "== 2. measured bayes, prior transferred from the H100 recording (and, for comparison, the model prior)"
if [ "$gpu" != h100 ]; then
  for s in filter_16M fdtd_512x512x256_r4; do
    for prior in transfer model; do
      extra=(); [ $prior = transfer ] && extra=(--from "bench/data/h100_$s.json")
      # shellcheck disable=SC2046
      "$memtune" $(args_of "$s") -q --strategy bayes --budget 10 "${extra[@]}" \
        --record "$out/bayes/${s}_$prior.json" >"$out/bayes/${s}_$prior.txt" 2>&1
      echo "bayes $s prior=$prior: exit $?"
    done
  done
fi

echo "== 3. model and transfer against the recordings"
runs1=(); runs2=()
for s in "${spaces[@]}"; do runs1+=("$out/run1/${gpu}_$s.json"); runs2+=("$out/run2/${gpu}_$s.json"); done
"$build/bench/model/memtune_model_validation" "${runs1[@]}" --target "$target" --repeat "${runs2[@]}" \
  >"$out/model_validation.txt" 2>&1
mkdir -p "$out/data"
cp bench/data/h100_*.json bench/data/h200_*.json "$out/data/" 2>/dev/null
cp "$out"/run1/"${gpu}"_*.json "$out/data/"
"$build/bench/model/memtune_gpu_validation" --data "$out/data" >"$out/gpu_validation.txt" 2>&1

echo
echo "== this GPU's recordings: model (catalogue $target) against run 1, run 2 against run 1 (noise ceiling)"
cat "$out/model_validation.txt"
echo
echo "== per template and GPU: model pick and transfer pick against the measured best"
cat "$out/gpu_validation.txt"
if [ "$gpu" != h100 ]; then
  echo
  echo "== bayes, 10 evaluations: best found (grid best in run 1)"
  python3 - "$out" <<'PY'
import json, sys, os
out = sys.argv[1]
for s in ("filter_16M", "fdtd_512x512x256_r4"):
    rec = json.load(open(os.path.join(out, "run1", [f for f in os.listdir(os.path.join(out, "run1")) if f.endswith(s + ".json")][0])))
    grid = min(t["time_s"] for t in rec["trials"] if t.get("status") == "ok")
    for prior in ("transfer", "model"):
        try:
            r = json.load(open(os.path.join(out, "bayes", f"{s}_{prior}.json")))
            trials = r["trials"]  # in evaluation order
            b = min(t["time_s"] for t in trials if t.get("status") == "ok")
            first = next((i + 1 for i, t in enumerate(trials) if t.get("status") == "ok" and t["time_s"] <= 1.05 * grid), None)
            print(f"{s:22s} prior={prior:8s} best {b*1e6:8.2f} us = {100*(b/grid-1):+5.1f}% vs grid {grid*1e6:.2f} us; "
                  f"within 5% after {first if first else '>10'} evaluations")
        except Exception as e:
            print(f"{s:22s} prior={prior:8s} no result ({e})")
PY
fi
