#!/usr/bin/env bash
# Cross-GPU transfer of user kernels, which have no model: `memtune tune
# --spec K --target T --from R` ranks T's configurations in the order R
# measured (docs/model.md, "A kernel without an access pattern"), and
# `--strategy bayes --from R` starts a search on the local GPU from there.
# For every example kernel (examples/kernels/*/):
#   1. on a machine with a GPU: the whole grid, measured and recorded in
#      bench/data/spec/<target>_<kernel>.json (<target>: the catalogue entry
#      whose aliases name this GPU), then bayes with $BUDGET evaluations
#      (default 8) from every other GPU's recording there, and without one
#      (flat prior);
#   2. anywhere (no GPU needed): every pair of recordings, source -> target,
#      the transferred pick (--target <target> --from <source>) looked up in
#      the target's recorded grid. A pair whose target is the local GPU is
#      skipped: memtune measures the local GPU instead of modeling it.
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
  k=$(basename "$spec" .json)
  kernels+=("$k")
  if [ -n "$local_target" ]; then
    "$memtune" tune --spec "$spec" -q --record "$data/${local_target}_$k.json" >"$raw/$k.grid.txt" 2>&1 ||
      echo "!! $k: the grid failed (see $raw/$k.grid.txt)"
    "$memtune" tune --spec "$spec" --strategy bayes --budget "$budget" --json -q >"$raw/$k.bayes_flat.json" 2>"$raw/$k.bayes_flat.err"
  fi
  for source in "$data"/*_"$k".json; do
    from=$(basename "$source" "_$k.json")
    [ "$from" = "$local_target" ] && continue
    [ -n "$local_target" ] && "$memtune" tune --spec "$spec" --strategy bayes --budget "$budget" --from "$source" --json -q \
      >"$raw/$k.bayes.$from.json" 2>"$raw/$k.bayes.$from.err"
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
print(f"\n{'kernel':<11} {'source -> target':<22} {'target best (us)':>16} {'transfer pick (us, vs best)':>28} "
      f"{'bayes ' + budget + ' from source':>22} {'bayes ' + budget + ' flat':>18}")
for k in kernels:
    recorded = {}
    for f in sorted(glob.glob(os.path.join(data, f"*_{k}.json"))):
        run = load(f)
        times = {key(t["config"]): t["time_s"] for t in (run or {}).get("trials", []) if t.get("status") == "ok" and "time_s" in t}
        if times:
            recorded[os.path.basename(f)[: -len(f"_{k}.json")]] = times
    flat = best_of(load(os.path.join(raw, f"{k}.bayes_flat.json")))[1]
    for to, times in recorded.items():
        best = min(times.values())
        cell = lambda s: f"{s * 1e6:8.2f} ({100 * (s / best - 1):+5.1f} %)" if s else f"{'-':>19}"
        for frm in recorded:
            if frm == to:
                continue
            pick = best_of(load(os.path.join(raw, f"{k}.{frm}.{to}.json")))[0]
            pick_cell = "(target is this GPU)" if to == local else cell(times.get(key(pick)) if pick else None)
            warm = cell(best_of(load(os.path.join(raw, f"{k}.bayes.{frm}.json")))[1]) if to == local else ""
            print(f"{k:<11} {frm + ' -> ' + to:<22} {best * 1e6:16.2f} {pick_cell:>28} {warm:>22} "
                  f"{cell(flat) if to == local else '':>18}")
print("\ntransfer pick: the best of --target <target> --from <source's recording>, looked up in the target's")
print("recorded grid; bayes (local GPU only): the best measured after that many evaluations, each in its own run.")
PY
