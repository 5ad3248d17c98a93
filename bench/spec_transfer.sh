#!/usr/bin/env bash
# User kernels (examples/kernels/*/, described in JSON with a "model"
# section) on GPUs they were not measured on: the model's pick (`memtune tune
# --spec K --target T`), the transfer from another GPU's recording (`--from
# R`: R's times scaled by the model's ratio between the GPUs), and a bayes
# search on the local GPU started from either.
# For every example kernel:
#   1. on a machine with a GPU: the whole grid, measured and recorded in
#      bench/data/spec/<target>_<folder>.json (<folder>: the example's folder; <target>: the catalogue entry
#      whose aliases name this GPU), then bayes with $BUDGET evaluations
#      (default 8) from every other GPU's recording there, from the model's
#      prediction (the default prior), and from a flat prior (--no-model-prior);
#   2. anywhere (no GPU needed): for every recording's target, the model's
#      pick and Spearman over the recorded grid, and for every pair of
#      recordings, source -> target, the transferred pick (--target <target>
#      --from <source>), looked up in the target's recorded grid. A target
#      that is the local GPU is skipped: memtune measures it instead of
#      modeling it.
# Prints a table last. Usage: bench/spec_transfer.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
budget=${BUDGET:-8}
data=bench/data/spec
raw=${RAW:-/tmp/spec-transfer}
mkdir -p "$data" "$raw"
memtune=$build/cli/memtune
if [ ! -x "$memtune" ]; then
  { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release && cmake --build "$build" -j"$(nproc)" --target memtune_cli; } \
    >"$raw/build.log" 2>&1 || { tail -30 "$raw/build.log"; exit 1; }
fi
local_target=""
if gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1) && [ -n "$gpu_name" ]; then
  local_target=$(python3 - "$gpu_name" <<'PY'
import glob, json, sys
name = sys.argv[1].strip()
for f in sorted(glob.glob("configs/targets/*.json")):
    t = json.load(open(f))
    if name in t.get("aliases", []) or name == t.get("display_name"):
        print(t["name"]); break
PY
)
  [ -n "$local_target" ] || { echo "spec_transfer: no catalogue target names '$gpu_name' (configs/targets aliases)"; exit 1; }
  echo "$gpu_name: catalogue target $local_target"
else
  echo "no GPU: the transfers between the recordings in $data only"
fi

kernels=()
for spec in examples/kernels/*/*.json; do
  k=$(basename "$(dirname "$spec")") # the folder: two examples may both be transpose.json
  kernels+=("$k")
  if [ -n "$local_target" ]; then
    "$memtune" tune --spec "$spec" -q --record "$data/${local_target}_$k.json" >"$raw/$k.grid.txt" 2>&1 ||
      echo "!! $k: the grid failed (see $raw/$k.grid.txt)"
    "$memtune" tune --spec "$spec" --strategy bayes --budget "$budget" --json -q >"$raw/$k.bayes_model.json" 2>"$raw/$k.bayes_model.err"
    "$memtune" tune --spec "$spec" --strategy bayes --budget "$budget" --no-model-prior --json -q \
      >"$raw/$k.bayes_flat.json" 2>"$raw/$k.bayes_flat.err"
  fi
  for source in "$data"/*_"$k".json; do
    from=$(basename "$source" "_$k.json")
    [ "$from" = "$local_target" ] && continue
    [ -n "$local_target" ] && "$memtune" tune --spec "$spec" --strategy bayes --budget "$budget" --from "$source" --json -q \
      >"$raw/$k.bayes.$from.json" 2>"$raw/$k.bayes.$from.err"
  done
  for dest in "$data"/*_"$k".json; do
    to=$(basename "$dest" "_$k.json")
    [ "$to" = "$local_target" ] && continue
    "$memtune" tune --spec "$spec" --target "$to" --record "$raw/$k.model.$to.json" -q >"$raw/$k.model.$to.txt" 2>&1
  done
  for source in "$data"/*_"$k".json; do
    for dest in "$data"/*_"$k".json; do
      from=$(basename "$source" "_$k.json") to=$(basename "$dest" "_$k.json")
      [ "$from" = "$to" ] || [ "$to" = "$local_target" ] && continue
      "$memtune" tune --spec "$spec" --target "$to" --from "$source" --json -q >"$raw/$k.$from.$to.json" 2>"$raw/$k.$from.$to.err"
    done
  done
done

python3 - "$data" "$raw" "$local_target" "$budget" "${kernels[@]}" <<'PY'
import glob, json, os, sys
data, raw, local, budget, kernels = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None

def best_of(run):
    """The best configuration and its time in a tuning run's JSON."""
    if not run or not run.get("best"):
        return None, None
    return run["best"]["config"], run["best"]["time_s"]

key = lambda config: json.dumps(config, sort_keys=True)

def times_of(run):
    return {key(t["config"]): t["time_s"] for t in (run or {}).get("trials", []) if t.get("status") == "ok" and "time_s" in t}

def spearman(a, b):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for m in range(i, j + 1):
                r[order[m]] = (i + j) / 2
            i = j + 1
        return r
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    var = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return cov / var if var else float("nan")

print(f"\n{'kernel':<11} {'source -> target':<22} {'target best (us)':>16} {'pick (us, vs best)':>22} "
      f"{'Spearman':>8} {'bayes ' + budget + ' from it':>20} {'bayes ' + budget + ' flat':>18}")
for k in kernels:
    recorded = {}
    for f in sorted(glob.glob(os.path.join(data, f"*_{k}.json"))):
        times = times_of(load(f))
        if times:
            recorded[os.path.basename(f)[: -len(f"_{k}.json")]] = times
    flat = best_of(load(os.path.join(raw, f"{k}.bayes_flat.json")))[1]
    for to, times in recorded.items():
        best = min(times.values())
        cell = lambda s: f"{s * 1e6:8.2f} ({100 * (s / best - 1):+5.1f} %)" if s else f"{'-':>19}"
        flat_cell = cell(flat) if to == local else ""
        # The model (no measurement): its pick and its ranking over the recorded grid.
        predicted = times_of(load(os.path.join(raw, f"{k}.model.{to}.json")))
        common = [c for c in predicted if c in times]
        if to == local:
            pick_cell, rho = "(target is this GPU)", ""
        elif common:
            pick_cell = cell(times[min(common, key=lambda c: predicted[c])])
            rho = f"{spearman([predicted[c] for c in common], [times[c] for c in common]):.3f}"
        else:
            pick_cell, rho = cell(None), ""
        warm = cell(best_of(load(os.path.join(raw, f"{k}.bayes_model.json")))[1]) if to == local else ""
        print(f"{k:<11} {'model -> ' + to:<22} {best * 1e6:16.2f} {pick_cell:>22} {rho:>8} {warm:>20} {flat_cell:>18}")
        for frm in recorded:
            if frm == to:
                continue
            pick = best_of(load(os.path.join(raw, f"{k}.{frm}.{to}.json")))[0]
            pick_cell = "(target is this GPU)" if to == local else cell(times.get(key(pick)) if pick else None)
            warm = cell(best_of(load(os.path.join(raw, f"{k}.bayes.{frm}.json")))[1]) if to == local else ""
            print(f"{k:<11} {frm + ' -> ' + to:<22} {best * 1e6:16.2f} {pick_cell:>22} {'':>8} {warm:>20} {flat_cell:>18}")
print("\nmodel: --target <target> (no measurement), its pick and Spearman over the target's recorded grid;")
print("source -> target: --target <target> --from <source's recording>; bayes (local GPU only): the best measured")
print("after that many evaluations, from the model's prediction or from the source's recording, and flat")
print("(--no-model-prior), each in its own run.")
PY
