#!/usr/bin/env bash
# Every size (GPU): per built-in template, a measured sweep of 8 sizes with
# bayes saved to a store (--refine 1: one size more where two neighbours
# disagree; REFINE=0 for none), then the whole grid measured at the swept
# sizes and at 4 sizes between the planned 8 (log midpoints of neighbours 1-2,
# 3-4, 5-6, 7-8); at
# each, the launcher's choice (memtune profile pick: the lookup TunedKernel
# makes) against that size's whole-grid best. The bar: within 5 % at a swept
# size, within 10 % in between. Prints a table; exit 1 when a size misses it.
# A kernel description (a path ending in .json) is swept with --spec and
# picked with `profile pick --spec`, as a user's kernel.
#   scripts/sweep_gpu_check.sh MEMTUNE OUT        (TEMPLATES="filter" for some)
# In two sittings (a GPU lent for less time than a template's sweep and its
# grids take): PHASE=sweep stops after the sweeps; SWEEP_FROM=DIR (the first
# sitting's OUT) takes each template's sweep from there and measures the grids.
set -uo pipefail
cd "$(dirname "$0")/.."
# This checkout's target catalogue, also for a memtune copied out of its build
# tree (which would find none, and model the local GPU without its latency and
# L2 figures).
export MEMTUNE_TARGETS_DIR=${MEMTUNE_TARGETS_DIR:-$PWD/configs/targets}
. bench/sweep/sizes.sh
memtune=${1:?usage: sweep_gpu_check.sh MEMTUNE OUT}
out=${2:?usage: sweep_gpu_check.sh MEMTUNE OUT}
mkdir -p "$out"
# Each template's folder in OUT is replaced: the first sitting's must be elsewhere.
if [ -n "${SWEEP_FROM:-}" ] && [ "$(realpath -m "$SWEEP_FROM")" = "$(realpath -m "$out")" ]; then
  echo "sweep_gpu_check.sh: SWEEP_FROM must be another folder than OUT ($out), whose template folders are replaced" >&2
  exit 2
fi
status=0
echo "| template | size | swept | launcher's choice | from | its time / grid best | head to head | bar | ok |"
echo "|---|---|---|---|---|---|---|---|---|"
for t in ${TEMPLATES:-$SWEEP_TEMPLATES $SWEEP_SPECS}; do
  over=$(sweep_over "$t") || exit 2
  set_args=$(sweep_set "$t")
  # A built-in template by name; a description by --spec, named by its file.
  if [[ $t == *.json ]]; then kernel="--spec $t" name=$(basename "$t" .json); else kernel=$t name=$t; fi
  d="$out/$name"
  rm -rf "$d" && mkdir -p "$d"
  if [ -n "${SWEEP_FROM:-}" ]; then
    cp "$SWEEP_FROM/$name/sweep.json" "$SWEEP_FROM/$name/store.json" "$SWEEP_FROM/$name/sweep_s" "$d/" ||
      { status=1; continue; }
    sweep_s=$(cat "$d/sweep_s")
  else
    start=$SECONDS
    # shellcheck disable=SC2086
    "$memtune" sweep $kernel --over "$over" $set_args --points 8 --refine "${REFINE:-1}" --strategy bayes $(sweep_search "$t") \
      --save "$d/store.json" --json -q >"$d/sweep.json" 2>"$d/sweep.err" || { status=1; tail -5 "$d/sweep.err"; continue; }
    sweep_s=$((SECONDS - start))
    echo "$sweep_s" >"$d/sweep_s"
  fi
  [ "${PHASE:-}" = sweep ] && { echo "| $name | swept in $sweep_s s (PHASE=sweep: no grids) | | | | | | | |"; continue; }
  # The 8 swept sizes and 4 between, as one --over list per variable.
  all=$(python3 - "$d/sweep.json" <<'PY'
import json, math, sys
rows = json.load(open(sys.argv[1]))["sizes"]
swept = [r["problem"] for r in rows]
planned = [r["problem"] for r in rows if not r.get("refined")]
names = [n for n in json.load(open(sys.argv[1]))["swept"]]
between = []
for i in range(0, len(planned) - 1, 2):
    between.append({n: int(round(math.sqrt(planned[i][n] * planned[i + 1][n]))) for n in names})
sizes = [{n: p[n] for n in names} for p in swept]
sizes += [b for b in between if b not in sizes]  # a refined size may be a planned midpoint: it is swept then
print(",".join(n + "=" + ",".join(str(s[n]) for s in sizes) for n in names))
PY
)
  start=$SECONDS
  # shellcheck disable=SC2086
  "$memtune" sweep $kernel --over "$all" $set_args --strategy grid --record "$d/grid.json" --json -q \
    >"$d/grid_sweep.json" 2>"$d/grid.err" || { status=1; tail -5 "$d/grid.err"; }
  grid_s=$((SECONDS - start))
  python3 - "$name" "$d" "$memtune" "$set_args" "$kernel" <<'PY' || status=1
import json, os, subprocess, sys
t, d, memtune, set_args, kernel = sys.argv[1:]
which = kernel.split() if kernel.startswith("--spec") else ["--template", t]
sweep = json.load(open(f"{d}/sweep.json"))
grid = json.load(open(f"{d}/grid_sweep.json"))
names = sweep["swept"]
swept = [{n: r["problem"][n] for n in names} for r in sweep["sizes"]]
bad = 0

# A grid's best over hundreds of noisy times is partly luck, and the grid ran
# after the sweep: where the choice misses its bar, the two configurations are
# timed again, alternating in separate runs, and the median of the rounds'
# ratios is shown beside the grid's (the verdict stays the grid's).
def timed(size, config):
    args = [memtune, "sweep", *kernel.split(), "--over", ",".join(f"{n}={size[n]}" for n in names), *set_args.split()]
    for k, v in sorted(config.items()):
        args += ["--only", f"{k}={v}"]
    run = subprocess.run(args + ["--json", "-q"], capture_output=True, text=True)
    if run.returncode:
        return None
    return json.loads(run.stdout)["sizes"][0]["time_s"]

def head_to_head(size, choice, best, rounds=3):
    ratios = []
    for _ in range(rounds):
        a, b = timed(size, choice), timed(size, best)
        if a and b:
            ratios.append(a / b)
    if not ratios:
        return "(not timed)"
    ratios.sort()
    return f"{ratios[len(ratios) // 2]:.3f} ({len(ratios)} rounds)"

for row in grid["sizes"]:
    size = {n: row["problem"][n] for n in names}
    tag = "-".join(f"{n}{size[n]}" for n in sorted(names))
    rec = json.load(open(f"{d}/grid.{tag}.json"))
    times = {json.dumps(tr["config"], sort_keys=True): tr["time_s"] for tr in rec["trials"] if tr.get("status") == "ok"}
    best = min(times.values())
    args = [memtune, "profile", "pick", f"{d}/store.json", *which, "--format", "json"]
    for n in names:
        args += ["--set", f"{n}={size[n]}"]
    args += set_args.split()
    pick = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    key = json.dumps(pick["config"], sort_keys=True)
    is_swept = size in swept
    bar = 1.05 if is_swept else 1.10
    head = "-"
    if key in times:
        ratio = times[key] / best
        ok = ratio <= bar
        shown = f"{ratio:.3f}"
        if not ok:
            best_cfg = json.loads(min(times, key=times.get))
            head = head_to_head(size, pick["config"], best_cfg)
    else:
        ok, shown = False, "(not in the grid's successes)"
    bad += not ok
    origin = pick["origin"].split(":")[0][:60]
    cfg = " ".join(f"{k}={v}" for k, v in sorted(pick["config"].items()))
    print(f"| {t} | {' '.join(f'{n}={size[n]}' for n in names)} | {'yes' if is_swept else 'between'} | {cfg} | "
          f"{origin} | {shown} | {head} | {bar:.2f} | {'ok' if ok else 'MISS'} |")
sys.exit(1 if bad else 0)
PY
  python3 - "$name" "$d/sweep.json" "$sweep_s" "$grid_s" <<'PY'
import json, sys
t, f, ss, gs = sys.argv[1:]
s = json.load(open(f))
print(f"| {t} | sweep: {len(s['sizes'])} sizes, {s['evaluations']} candidates ({s.get('cost_vs_grid', 0):.2f} x one grid), "
      f"{ss} s; 12 whole grids {gs} s | | | | | | | |")
PY
done
exit $status
