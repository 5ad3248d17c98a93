#!/usr/bin/env bash
# Several GPUs of one host (--devices), on a machine with at least two GPUs
# of one model, the compile cache warm (a first run of each space compiles
# it). Each space is tuned on 1, 2, 4, 8 GPUs, as many as the host has
# (--devices 0, 0,1, 0,1,2,3, ...), in this one call:
#   - the fdtd grid (512x512x256 r4) and the filter grid (n = 16M);
#   - wide_scale (bench/devices/wide_scale.json: y = a x, 16128 configurations
#     of cheap candidates), random search with a budget (WIDE_BUDGET, 2000);
# and, per space, each run's wall time, candidates per second and speed-up
# against one GPU (fdtd against the bars: 2 GPUs >= 1.85x, 4 GPUs >= 3.3x),
# the same candidates, statuses and best (within 5 %) as on one GPU, and
# where its set-up went (the JSON's "setup": the first candidate sent, and
# the slowest worker's start, inputs and reference, and the copies on the
# first GPU). Then bayes with a batch per GPU (--devices all) against
# sequential bayes (--devices 0) on fdtd and filter: evaluations and seconds
# to reach 5 % of the grid's optimum, per seed. A short table is printed
# last; the check fails on a run that differs from one GPU's (a speed-up
# below its bar is reported, not failed). On one GPU it says what it
# skipped and exits 0.
#
#   scripts/devices_gpu_check.sh BUILD_DIR      (OUT: where logs go, default devices-check-out)
#   SEEDS="1 2 3" BAYES_BUDGET=80 WIDE_BUDGET=2000 scripts/devices_gpu_check.sh build-gpu
#   MEMTUNE=path/to/memtune scripts/devices_gpu_check.sh   (a memtune built elsewhere)
set -uo pipefail
build=${1:-build-gpu}
out=${OUT:-devices-check-out}
seeds=${SEEDS:-1 2 3}
budget=${BAYES_BUDGET:-80}
wide_budget=${WIDE_BUDGET:-2000}
memtune=${MEMTUNE:-$build/cli/memtune}
wide_spec="$(cd "$(dirname "$0")/.." && pwd)/bench/devices/wide_scale.json"
mkdir -p "$out"
[ -x "$memtune" ] || { echo "devices_gpu_check.sh: $memtune not built" >&2; exit 2; }
count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
models=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort -u | paste -sd ';')
echo "GPUs: $count ($models)"
if [ "$count" -lt 2 ]; then
  echo "| check | result |"
  echo "|---|---|"
  echo "| devices | skipped: $count GPU here ($models); --devices needs 2 or more (nvidia-h200-x2) |"
  exit 0
fi
cache="$out/cache"
# 1, 2, 4, ... GPUs up to the host's count: "0", "0,1", "0,1,2,3", ...
lists=()
for n in 1 2 4 8 16; do
  [ "$n" -le "$count" ] && lists+=("$(seq -s, 0 $((n - 1)))")
done

run() { # name, args...: the JSON output, a recording and a journal (when each candidate ended) per run
  local name=$1; shift
  rm -f "$out/$name.journal"
  local started=$SECONDS
  "$memtune" "$@" -q --cache-dir "$cache" --record "$out/$name.json" --journal "$out/$name.journal" --json \
    >"$out/$name.out.json" 2>"$out/$name.err"
  echo "$name: exit $?, $((SECONDS - started)) s" >&2
}

spaces=(fdtd filter wide)
args_of() { # a space's command line
  case $1 in
    fdtd) echo fdtd ;;
    filter) echo filter ;;
    wide) echo "tune --spec $wide_spec --strategy random --budget $wide_budget" ;;
  esac
}
for space in "${spaces[@]}"; do
  # shellcheck disable=SC2046 # the space's arguments are words
  run "${space}_warmup" $(args_of "$space") --devices all # compiles every candidate: the timed runs hit the cache
  for list in "${lists[@]}"; do
    # shellcheck disable=SC2046
    run "${space}_gpus$(( $(tr -cd , <<<"$list" | wc -c) + 1 ))" $(args_of "$space") --devices "$list"
  done
done
for kernel in fdtd filter; do
  for seed in $seeds; do
    run "${kernel}_bayes_seq_$seed" "$kernel" --devices 0 --strategy bayes --budget "$budget" --seed "$seed"
    run "${kernel}_bayes_batch_$seed" "$kernel" --devices all --strategy bayes --budget "$budget" --seed "$seed"
  done
done

python3 - "$out" "$count" "$seeds" "${spaces[*]}" "${lists[*]}" <<'PY'
import json, statistics, sys
out, count, seeds, spaces = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
gpus = [len(l.split(",")) for l in sys.argv[5].split()]
bars = {("fdtd", 2): 1.85, ("fdtd", 4): 3.3}
labels = {"fdtd": "fdtd grid", "filter": "filter grid", "wide": "wide_scale random"}
def load(name):
    with open(f"{out}/{name}.out.json") as f: doc = json.load(f)
    with open(f"{out}/{name}.json") as f: rec = json.load(f)
    with open(f"{out}/{name}.journal") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return doc, rec, [l for l in lines if "candidate" in l]
def key(config): return json.dumps(config, sort_keys=True)
def setup_text(doc):
    s = doc.get("setup")
    if not s: return "no set-up times (an older memtune?)"
    w = s["workers"]
    slow = lambda part: max(x[part] for x in w) if w else 0.0
    first = s["first_candidate_s"]
    return (f"first candidate at {first:.2f} s; " if first is not None else "no candidate sent; ") + \
           f"per worker (the slowest of {len(w)}): start {slow('start_s'):.3f} s, inputs {slow('inputs_s'):.3f} s, " \
           f"reference {slow('reference_s'):.3f} s, expected values {slow('expected_s'):.3f} s; " \
           f"copy ceiling {s['copy_ceiling_s']:.3f} s, same-size copy {s['same_size_copy_s']:.3f} s (GPU 0)"
rows, failed = [], []
for space in spaces:
    one_doc, one_rec, _ = load(f"{space}_gpus1")
    one = {key(t["config"]): t for t in one_rec["trials"]}
    for n in gpus:
        doc, rec, _ = load(f"{space}_gpus{n}")
        trials = {key(t["config"]): t for t in rec["trials"]}
        wall = doc["wall_seconds"]
        line = f"{wall:.1f} s wall, {len(trials) / wall:.1f} candidates/s, best {doc['best']['time_s'] * 1e6:.1f} us"
        if n > 1:
            per_gpu = {}
            for t in rec["trials"]:
                if "device" in t: per_gpu[t["device"]] = per_gpu.get(t["device"], 0) + 1
            same_set = set(one) == set(trials) and len(rec["trials"]) == len(trials)
            same_status = same_set and all(one[k]["status"] == trials[k]["status"] for k in one)
            b1, bn = one_doc["best"], doc["best"]
            close = abs(bn["time_s"] / b1["time_s"] - 1) <= 0.05
            speedup = one_doc["wall_seconds"] / wall
            bar = bars.get((space, n))
            line += (f"; {speedup:.2f}x one GPU" + (f" (bar {bar}x: {'met' if speedup >= bar else 'NOT met'})" if bar else "") +
                     f"; candidates per GPU {dict(sorted(per_gpu.items()))}; same candidates {'yes' if same_set else 'NO'}, "
                     f"same statuses {'yes' if same_status else 'NO'}, best within 5 % {'yes' if close else 'NO'} "
                     f"({'same config' if b1['config'] == bn['config'] else 'other config'})")
            if not (same_set and same_status and close): failed.append(f"{labels[space]} on {n} GPUs")
        rows.append((f"{labels[space]}, {n} GPU{'s' if n > 1 else ''}", line))
        rows.append((f"{labels[space]}, {n} GPU{'s' if n > 1 else ''}: set-up", setup_text(doc)))
for kernel in ("fdtd", "filter"):
    trials = load(f"{kernel}_gpus1")[1]["trials"] + load(f"{kernel}_gpus{gpus[-1]}")[1]["trials"]
    opt = min(t["time_s"] for t in trials if t["status"] == "ok")
    for mode in ("seq", "batch"):
        evals, secs = [], []
        for seed in seeds:
            doc, rec, lines = load(f"{kernel}_bayes_{mode}_{seed}")
            hit = next((i for i, l in enumerate(lines) if l["status"] == "ok" and l["timing"]["median_s"] <= 1.05 * opt), None)
            evals.append(hit + 1 if hit is not None else float("inf"))
            secs.append(lines[hit]["elapsed_s"] if hit is not None else float("inf"))
        label = "sequential, --devices 0" if mode == "seq" else f"batch {count}, --devices all"
        rows.append((f"{kernel} bayes {label}: to 5 % of the grid optimum",
                     f"median {statistics.median(evals)} evaluations, {statistics.median(secs):.1f} s "
                     f"(seeds {' '.join(seeds)}: {evals})"))
print("| check | result |")
print("|---|---|")
for r in rows: print(f"| {r[0]} | {r[1]} |")
print(f"| devices | {'FAIL: ' + ', '.join(failed) if failed else 'PASS'} |")
sys.exit(1 if failed else 0)
PY
