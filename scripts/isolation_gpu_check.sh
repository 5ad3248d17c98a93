#!/usr/bin/env bash
# Worker isolation on a GPU (about 6 minutes on an H100 with a cold build): a bad
# candidate costs that candidate, a hang is killed and the GPU is normal
# after it, isolation costs little, and a run killed with SIGKILL resumes.
#   scripts/isolation_gpu_check.sh [build-dir]
# Builds memtune, memtune-worker and the GPU tests, then:
#   1. the fault corpus (tests/gpu/faults_gpu_test.cpp): every fault
#      classified with its reason, the run finishes, the best is good, the good
#      kernel right after the hang and the illegal address at its normal time;
#   2. the watchdog alone: the hanging candidate and the good kernel after it
#      (memtune tune --spec tests/faults/faults.json --only fault=infinite_loop)
#      against the good kernel's normal time;
#   3. isolation's cost: the whole filter grid (n = 16M) with a warm compile
#      cache, in-process (--no-isolation) and isolated, alternated, 3 each,
#      wall time of the whole process (worker start included);
#   4. kill -9 of the measured filter grid at a random candidate (once the
#      journal holds a random number of them), then --resume: every
#      configuration journaled once, the same best as the uninterrupted run.
# Prints a table last; logs and JSON under $OUT (or ./isolation-check-out).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-isolation-check-out}
mkdir -p "$out"
cache="$out/compile-cache"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_worker memtune_gpu_tests >"$out/build.log" 2>&1 ||
  { tail -50 "$out/build.log"; exit 1; }
memtune="$build/cli/memtune"
now() { date +%s.%N; }
journaled() { local n; n=$(grep -c '"candidate"' "$1" 2>/dev/null); echo "${n:-0}"; }

echo "== 1. fault corpus (GPU test)"
"$build/tests/memtune_gpu_tests" -tc='fault corpus*' >"$out/faults_gpu_test.log" 2>&1
faults_status=$?
grep '^fault-corpus' "$out/faults_gpu_test.log" | cut -c1-200
tail -3 "$out/faults_gpu_test.log"

echo "== 2. watchdog: the hang, then the good kernel"
"$memtune" tune --spec tests/faults/faults.json --only fault=none --cache-dir "$cache" --json -q >"$out/normal.json" 2>"$out/normal.err"
hang_start=$(now)
"$memtune" tune --spec tests/faults/faults.json --only fault=infinite_loop --cache-dir "$cache" --json -q \
  >"$out/hang.json" 2>"$out/hang.err"
hang_end=$(now)

echo "== 3. isolation overhead: filter grid n=16M, warm compile cache"
"$memtune" filter --n 16M --cache-dir "$cache" -q --json >"$out/filter_warmup.json" 2>"$out/filter_warmup.err"
: >"$out/overhead.txt"
for round in 1 2 3; do
  for mode in in-process isolated; do
    flag=""
    [ "$mode" = in-process ] && flag="--no-isolation"
    start=$(now)
    "$memtune" filter --n 16M --cache-dir "$cache" -q --json $flag >"$out/filter_${mode}_$round.json" 2>"$out/filter_${mode}_$round.err"
    end=$(now)
    echo "$mode $round $(awk "BEGIN { print $end - $start }")" | tee -a "$out/overhead.txt"
  done
done

echo "== 4. kill -9 at a random candidate, then --resume"
rm -f "$out/resume.journal" "$out/resume.json" "$out/whole.json"
"$memtune" filter --n 16M --cache-dir "$cache" -q --record "$out/whole.json" >"$out/whole.txt" 2>&1
kill_at=$(( (RANDOM % 240) + 20 )) # candidates journaled before the kill
"$memtune" filter --n 16M --cache-dir "$cache" -q --journal "$out/resume.journal" >"$out/killed.txt" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  [ "$(journaled "$out/resume.journal")" -ge "$kill_at" ] && break
  sleep 0.005
done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
killed_after=$(journaled "$out/resume.journal")
"$memtune" filter --n 16M --cache-dir "$cache" -q --resume "$out/resume.journal" --record "$out/resume.json" \
  >"$out/resumed.txt" 2>&1
resume_status=$?
grep -m1 'resumed' "$out/resumed.txt"

python3 - "$out" "$faults_status" "$killed_after" "$resume_status" "$hang_start" "$hang_end" <<'PY'
import json, os, re, statistics, sys
out, faults_status, killed_after, resume_status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
hang_wall = float(sys.argv[6]) - float(sys.argv[5])
rows = []
def row(check, result, bar, ok):
    rows.append((check, result, bar, "PASS" if ok else "FAIL"))

# 1. fault corpus
log = open(os.path.join(out, "faults_gpu_test.log")).read()
lines = [l for l in log.splitlines() if re.match(r"fault-corpus \S+\s+(bad|good)", l)]
bad = [l for l in lines if l.split()[2] == "bad" and l.split()[1] != "none"]
row("fault corpus: bad candidates classified", f"{len(bad)} faults, doctest exit {faults_status}",
    "16 faults, each its status and reason", faults_status == 0 and len(bad) == 16)
for after in ("infinite_loop", "illegal_read"):
    m = re.search(rf"good kernel after {after}: ([\d.]+) us, median of the good kernel ([\d.]+) us, ratio ([\d.]+)", log)
    row(f"good kernel right after {after}", f"{m.group(1)} us vs {m.group(2)} us ({m.group(3)}x)" if m else "no result",
        "0.85x .. 1.15x", bool(m) and 0.85 < float(m.group(3)) < 1.15)

# 2. watchdog
try:
    normal = json.load(open(os.path.join(out, "normal.json")))
    hang = json.load(open(os.path.join(out, "hang.json")))
    t_normal = statistics.median(e["time_s"] for e in normal["ranked"])
    killed = [f for f in hang["failures"] if f["status"] == "timeout"]
    good = [e for e in hang["ranked"] if e["config"]["variant"] == "good"]
    ratio = good[0]["time_s"] / t_normal
    row("watchdog: hang killed, next candidate", f"{len(killed)} timeout ({hang_wall:.1f} s run); next {good[0]['time_s']*1e6:.1f} us = {ratio:.2f}x normal",
        "timeout, then 0.85x .. 1.15x", len(killed) == 1 and 0.85 < ratio < 1.15)
    print("watchdog reason:", killed[0]["reason"] if killed else "-")
except Exception as e:
    row("watchdog: hang killed, next candidate", f"no result ({e})", "timeout, then normal", False)

# 3. overhead
walls = {"in-process": [], "isolated": []}
for line in open(os.path.join(out, "overhead.txt")):
    mode, _, wall = line.split()
    walls[mode].append(float(wall))
inner = {m: [json.load(open(os.path.join(out, f"filter_{m}_{r}.json")))["wall_seconds"] for r in (1, 2, 3)] for m in walls}
ip, iso = statistics.median(walls["in-process"]), statistics.median(walls["isolated"])
restarts = [json.load(open(os.path.join(out, f"filter_isolated_{r}.json"))).get("isolation", {}) for r in (1, 2, 3)]
row("isolation overhead, filter grid (process wall)", f"in-process {ip:.2f} s, isolated {iso:.2f} s ({100*(iso/ip-1):+.1f}%)",
    "<= +20%", iso <= 1.2 * ip)
row("  same, tuning wall (result.wall_seconds)",
    f"{statistics.median(inner['in-process']):.2f} s vs {statistics.median(inner['isolated']):.2f} s; isolation: {restarts[0].get('where', '?')}",
    "(for information)", True)

# 4. kill -9 and resume
try:
    journal = [json.loads(l) for l in open(os.path.join(out, "resume.journal"))]
    configs = [json.dumps(l["config"], sort_keys=True) for l in journal if "candidate" in l]
    whole = json.load(open(os.path.join(out, "whole.json")))
    resumed = json.load(open(os.path.join(out, "resume.json")))
    whole_set = {json.dumps(t["config"], sort_keys=True) for t in whole["trials"]}
    best = lambda rec: min((t for t in rec["trials"] if t["status"] == "ok"), key=lambda t: t["time_s"])
    bw, br = best(whole), best(resumed)
    same_best = bw["config"] == br["config"] or abs(br["time_s"] / bw["time_s"] - 1) < 0.02
    short = lambda c: " ".join(f"{k}={v}" for k, v in c.items())
    row(f"kill -9 after {killed_after} candidates, --resume",
        f"{len(configs)} journaled, {len(configs) - len(set(configs))} twice, {len(set(configs) ^ whole_set)} differ from one run",
        "each once, same set", resume_status == 0 and len(configs) == len(set(configs)) and set(configs) == whole_set)
    row("  same best", f"{short(br['config'])} {br['time_s']*1e6:.2f} us; one run: {short(bw['config'])} {bw['time_s']*1e6:.2f} us",
        "same config, or within 2 %", same_best)
except Exception as e:
    row("kill -9 and --resume", f"no result ({e})", "each once, same best", False)

w = [max(len(r[i]) for r in rows) for i in range(3)]
print()
print(f"{'check':<{w[0]}}  {'result':<{w[1]}}  {'bar':<{w[2]}}  verdict")
for r in rows:
    print(f"{r[0]:<{w[0]}}  {r[1]:<{w[1]}}  {r[2]:<{w[2]}}  {r[3]}")
sys.exit(0 if all(r[3] == "PASS" for r in rows) else 1)
PY
