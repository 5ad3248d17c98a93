#!/usr/bin/env bash
# The GPU runs that validating the model needs, on an H100 or an H200, in three
# steps that each fit one device call (a whole grid of every template takes
# about 6 minutes):
#   record  every template's whole grid at its default size (run 1), then the
#           model and the transfer against it (memtune_model_validation and
#           memtune_gpu_validation over bench/data plus this run); transpose_4096
#           has no H100 recording in bench/data yet: run this step on an H100
#           too to give it one
#   repeat  the same grids again (run 2): how well run 2 ranks run 1 is the
#           noise ceiling of any model's Spearman (--repeat)
#   bayes   measured bayes, 10 evaluations, with the prior transferred from the
#           H100 recording (--from bench/data/h100_*.json) and with the model's
#           prior, on filter and fdtd: how few evaluations a second GPU costs
# Recordings are named like bench/data's (<gpu>_<space>.json) and kept in
# <build-dir>/model-runs between steps; each step copies what it made to $OUT.
# Copy $OUT/<gpu>_*.json into bench/data to keep run 1. Prints a short table last.
#   scripts/model_gpu_runs.sh [build-dir] [record|repeat|bayes]   (GPU=h100|h200 forces the prefix;
#   SPACES="filter_16M ..." runs some spaces only; the validations read whatever run 1 holds)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
step=${2:-record}
out=${OUT:-model-gpu-out}
runs="$build/model-runs"
mkdir -p "$out" "$runs/run1" "$runs/run2" "$runs/bayes"

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
# SPACES="filter_16M fdtd_512x512x256_r4" limits a step to some (a call that would run past the device's limit).
read -r -a spaces <<<"${SPACES:-aos_soa_read_16M aos_soa_write_16M fdtd_512x512x256_r4 filter_16M matvec_col_8192 matvec_row_8192 transpose_4096}"
args_of() {
  case $1 in
    aos_soa_read_16M) echo "aos_soa --n 16M --op read" ;;
    aos_soa_write_16M) echo "aos_soa --n 16M --op write" ;;
    fdtd_512x512x256_r4) echo "fdtd --nx 512 --ny 512 --nz 256 --radius 4" ;;
    filter_16M) echo "filter --n 16M" ;;
    matvec_col_8192) echo "matvec --rows 8192 --cols 8192 --layout col" ;;
    matvec_row_8192) echo "matvec --rows 8192 --cols 8192 --layout row" ;;
    transpose_4096) echo "transpose --rows 4096 --cols 4096" ;;
  esac
}
record_all() { # run folder
  for s in "${spaces[@]}"; do
    start=$(date +%s)
    # shellcheck disable=SC2046
    "$memtune" $(args_of "$s") -q --record "$1/${gpu}_$s.json" >"$1/${gpu}_$s.txt" 2>&1
    echo "$(basename "$1") $s: exit $? in $(( $(date +%s) - start )) s"
  done
}

case $step in
  record)
    echo "== whole grids (run 1)"
    record_all "$runs/run1"
    cp "$runs"/run1/"${gpu}"_* "$out"/
    files=("$runs"/run1/"${gpu}"_*.json)
    "$build/bench/model/memtune_model_validation" "${files[@]}" --target "$target" >"$out/model_validation.txt" 2>&1
    mkdir -p "$out/data"
    cp bench/data/h100_*.json "$out/data/"
    cp bench/data/h200_*.json "$out/data/" 2>/dev/null
    cp "$runs"/run1/"${gpu}"_*.json "$out/data/"
    rm -f "$out/data/h100_probe"* "$out/data/h100_probed_target.json"
    "$build/bench/model/memtune_gpu_validation" --data "$out/data" >"$out/gpu_validation.txt" 2>&1
    echo
    echo "== model (catalogue $target, no calibration) against this run"
    cat "$out/model_validation.txt"
    echo
    echo "== per template and GPU: model pick and transfer pick against the measured best"
    cat "$out/gpu_validation.txt"
    ;;
  repeat)
    echo "== whole grids again (run 2)"
    record_all "$runs/run2"
    mkdir -p "$out/repeat"; cp "$runs"/run2/"${gpu}"_* "$out/repeat/"
    first=(); second=()
    for s in "${spaces[@]}"; do
      [ -f "$runs/run1/${gpu}_$s.json" ] || { echo "no run 1 of $s: run the record step first (same build dir)"; continue; }
      first+=("$runs/run1/${gpu}_$s.json"); second+=("$runs/run2/${gpu}_$s.json")
    done
    "$build/bench/model/memtune_model_validation" "${first[@]}" --target "$target" --repeat "${second[@]}" \
      >"$out/model_validation_repeat.txt" 2>&1
    echo
    echo "== model against run 1, and run 2 against run 1 (the noise ceiling, last column)"
    cat "$out/model_validation_repeat.txt"
    ;;
  bayes)
    [ -f "$runs/run1/${gpu}_filter_16M.json" ] || { echo "run the record step first (same build dir)"; exit 2; }
    for s in filter_16M fdtd_512x512x256_r4; do
      for prior in transfer model; do
        extra=(); [ $prior = transfer ] && extra=(--from "bench/data/h100_$s.json")
        # shellcheck disable=SC2046
        "$memtune" $(args_of "$s") -q --strategy bayes --budget 10 "${extra[@]}" \
          --record "$runs/bayes/${s}_$prior.json" >"$runs/bayes/${s}_$prior.txt" 2>&1
        echo "bayes $s prior=$prior: exit $?"
      done
    done
    mkdir -p "$out/bayes"; cp "$runs"/bayes/* "$out/bayes/"
    echo
    echo "== bayes, 10 evaluations: best found against run 1's grid best"
    python3 - "$runs" "$gpu" <<'PY'
import json, sys, os
runs, gpu = sys.argv[1], sys.argv[2]
for s in ("filter_16M", "fdtd_512x512x256_r4"):
    rec = json.load(open(os.path.join(runs, "run1", f"{gpu}_{s}.json")))
    grid = min(t["time_s"] for t in rec["trials"] if t.get("status") == "ok")
    for prior in ("transfer", "model"):
        try:
            trials = json.load(open(os.path.join(runs, "bayes", f"{s}_{prior}.json")))["trials"]  # evaluation order
            best = min(t["time_s"] for t in trials if t.get("status") == "ok")
            first = next((i + 1 for i, t in enumerate(trials)
                          if t.get("status") == "ok" and t["time_s"] <= 1.05 * grid), None)
            print(f"{s:22s} prior={prior:8s} best {best*1e6:8.2f} us = {100*(best/grid-1):+5.1f}% vs grid "
                  f"{grid*1e6:.2f} us; within 5% after {first if first else '>10'} evaluations")
        except Exception as e:
            print(f"{s:22s} prior={prior:8s} no result ({e})")
PY
    ;;
  *) echo "step must be record, repeat or bayes"; exit 2 ;;
esac
