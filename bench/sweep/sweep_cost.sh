#!/usr/bin/env bash
# What a sweep of 8 sizes costs against one size's whole grid, per built-in
# template: the sweep with bayes, each size warm-started from the sizes done
# (memtune sweep --strategy bayes), against the whole grid at the sweep's
# largest size. Candidates evaluated and seconds, and their ratios (the bar:
# at most 3x one grid).
#   bench/sweep/sweep_cost.sh MEMTUNE OUT [--target NAME] [--budget N] [--patience N]
# With --target NAME (no GPU needed) the runs are modeled: the candidates
# count, the seconds are compile and model time. Without, measured on the
# local GPU: the seconds are the figure. TEMPLATES="filter fdtd" for some.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sizes.sh"
memtune=${1:?usage: sweep_cost.sh MEMTUNE OUT [--target NAME] [--budget N] [--patience N]}
out=${2:?usage: sweep_cost.sh MEMTUNE OUT [--target NAME] [--budget N] [--patience N]}
shift 2
target=local budget='' patience=''
while [ $# -gt 0 ]; do
  case $1 in
    --target) target=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --patience) patience=$2; shift 2 ;;
    *) echo "sweep_cost.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
echo "| template | sizes | sweep candidates | grid candidates | candidates ratio | sweep s | grid s | seconds ratio | best changes |"
echo "|---|---|---|---|---|---|---|---|---|"
status=0
for t in ${TEMPLATES:-$SWEEP_TEMPLATES}; do
  over=$(sweep_over "$t") || exit 2
  # shellcheck disable=SC2046
  search=$(sweep_search "$t") # sizes.sh's, unless given
  [ -n "$budget" ] && search="$search --budget $budget"
  [ -n "$patience" ] && search="$search --patience $patience"
  # shellcheck disable=SC2046,SC2086
  "$memtune" sweep "$t" --over "$over" $(sweep_set "$t") --points 8 --target "$target" --strategy bayes \
    $search --json -q >"$out/${t}_sweep.json" 2>"$out/${t}_sweep.err" || status=1
  # The largest size's whole grid: every variable at its range's top.
  largest=$(python3 - "$over" <<'PY'
import sys
print(" ".join("--set " + item.split("=")[0] + "=" + item.split(":")[-1] for item in sys.argv[1].split(",")))
PY
)
  # shellcheck disable=SC2046
  "$memtune" sweep "$t" --over "$(echo "$largest" | sed 's/--set //g; s/ /,/g')" $(sweep_set "$t") --target "$target" \
    --strategy grid --record "$out/${t}_grid.json" --json -q >"$out/${t}_grid_run.json" 2>"$out/${t}_grid.err" || status=1
  python3 - "$t" "$out/${t}_sweep.json" "$out/${t}_grid_run.json" <<'PY'
import json, sys
t, sweep, grid = sys.argv[1:]
try:
    s, g = json.load(open(sweep)), json.load(open(grid))
except Exception as e:
    print(f"| {t} | (failed: {e}) |||||||")
    sys.exit(0)
gc, gs = g["sizes"][0]["grid"], g["wall_s"]
print(f"| {t} | {len(s['sizes'])} | {s['evaluations']} | {gc} | {s['evaluations'] / max(gc, 1):.2f} | "
      f"{s['wall_s']:.1f} | {gs:.1f} | {s['wall_s'] / max(gs, 1e-9):.2f} | {s['changes']} |")
PY
done
exit $status
