#!/usr/bin/env bash
# Several GPUs of one host (--devices): on a machine with at least
# two GPUs of one model, for the fdtd and filter grids at their default sizes,
# `--devices all` against `--devices 0` (wall time, candidates per second, the
# best, candidates per GPU, the same candidates and statuses); then bayes with
# a batch per GPU (--devices all) against sequential bayes (--devices 0):
# evaluations and seconds to reach 5 % of the grid's optimum, per seed. On one
# GPU it says what it skipped. A short table is printed last.
#
#   scripts/devices_gpu_check.sh BUILD_DIR            (OUT: where logs go, default devices-check-out)
#   SEEDS="1 2 3" BAYES_BUDGET=80 scripts/devices_gpu_check.sh build-gpu
set -uo pipefail
build=${1:-build-gpu}
out=${OUT:-devices-check-out}
seeds=${SEEDS:-1 2 3}
budget=${BAYES_BUDGET:-80}
memtune="$build/cli/memtune"
mkdir -p "$out"
[ -x "$memtune" ] || { echo "devices_gpu_check.sh: $memtune not built" >&2; exit 2; }
count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
models=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort -u | paste -sd ';')
echo "GPUs: $count ($models)"
if [ "$count" -lt 2 ]; then
  echo "| check | result |"
  echo "|---|---|"
  echo "| devices | skipped: $count GPU here ($models); --devices all needs 2 or more (nvidia-h200-x2) |"
  exit 0
fi
cache="$out/cache"

run() { # name, args...: a recording and a journal (when each candidate ended) per run
  local name=$1; shift
  rm -f "$out/$name.journal"
  local started=$SECONDS
  "$memtune" "$@" -q --cache-dir "$cache" --record "$out/$name.json" --journal "$out/$name.journal" --json \
    >"$out/$name.out.json" 2>"$out/$name.err"
  echo "$name: exit $?, $((SECONDS - started)) s" >&2
}

for kernel in fdtd filter; do
  run "${kernel}_warmup" "$kernel" --devices all # compiles every candidate: the timed runs below hit the cache
  run "${kernel}_one" "$kernel" --devices 0
  run "${kernel}_all" "$kernel" --devices all
  for seed in $seeds; do
    run "${kernel}_bayes_seq_$seed" "$kernel" --devices 0 --strategy bayes --budget "$budget" --seed "$seed"
    run "${kernel}_bayes_batch_$seed" "$kernel" --devices all --strategy bayes --budget "$budget" --seed "$seed"
  done
done

python3 - "$out" "$count" "$seeds" <<'PY'
import json, statistics, sys
out, count, seeds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
def load(name):
    with open(f"{out}/{name}.out.json") as f: doc = json.load(f)
    with open(f"{out}/{name}.json") as f: rec = json.load(f)
    with open(f"{out}/{name}.journal") as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return doc, rec, [l for l in lines if "candidate" in l]
def key(config): return json.dumps(config, sort_keys=True)
rows, failed = [], []
for kernel in ("fdtd", "filter"):
    one_doc, one_rec, _ = load(f"{kernel}_one")
    all_doc, all_rec, _ = load(f"{kernel}_all")
    one = {key(t["config"]): t for t in one_rec["trials"]}
    both = {key(t["config"]): t for t in all_rec["trials"]}
    same_set = set(one) == set(both) and len(all_rec["trials"]) == len(both)
    same_status = same_set and all(one[k]["status"] == both[k]["status"] for k in one)
    per_gpu = {}
    for t in all_rec["trials"]:
        if "device" in t: per_gpu[t["device"]] = per_gpu.get(t["device"], 0) + 1
    opt = min(t["time_s"] for t in list(one.values()) + list(both.values()) if t["status"] == "ok")
    b1, b2 = one_doc["best"], all_doc["best"]
    for name, doc, n in (("--devices 0", one_doc, len(one)), (f"--devices all ({count} GPUs)", all_doc, len(both))):
        rows.append((f"{kernel} grid {name}", f"{doc['wall_seconds']:.1f} s wall, {n / doc['wall_seconds']:.1f} candidates/s, "
                     f"best {doc['best']['time_s'] * 1e6:.1f} us"))
    speedup = one_doc["wall_seconds"] / all_doc["wall_seconds"]
    close = abs(b2["time_s"] / b1["time_s"] - 1) <= 0.05
    rows.append((f"{kernel} grid: all vs 0", f"{speedup:.2f}x faster; candidates per GPU {dict(sorted(per_gpu.items()))}; "
                 f"same candidates {'yes' if same_set else 'NO'}, same statuses {'yes' if same_status else 'NO'}, "
                 f"best within 5 % {'yes' if close else 'NO'} ({'same config' if b1['config'] == b2['config'] else 'other config'})"))
    if not (same_set and same_status and close): failed.append(f"{kernel} grid")
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
