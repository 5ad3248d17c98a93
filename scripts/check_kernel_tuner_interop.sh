#!/usr/bin/env bash
# Checks memtune's Kernel Tuner interop against the real kernel_tuner package,
# on files Kernel Tuner itself writes. No GPU needed: Kernel Tuner's C
# backend tunes a small C function with g++ on the CPU.
#
#  1. Kernel Tuner tunes `add` (block_size_x: integers, scale: floats; one
#     block size fails to compile) and writes its cache and a T4 results file.
#  2. `memtune import` reads the cache (failed configurations included:
#     "__error__": "CompilationFailedConfig"), the same cache still open (as
#     Kernel Tuner leaves it while it runs) and the T4 file: the same trials.
#  3. `memtune export --format kernel_tuner` of that recording keeps the types
#     (scale stays a float, keys as Kernel Tuner joins them), and Kernel Tuner
#     reads it (tune_kernel in simulation mode, brute force over the cache):
#     every configuration, the same failures, the same best.
#  4. The same for a memtune recording ($2, default bench/data/synthetic_space.json).
#
#   scripts/check_kernel_tuner_interop.sh [build-dir] [recording]
#
# Installs kernel_tuner with pip into a venv ($KT_VENV, default /tmp/kt-venv,
# the one bench/search/run_all.sh uses). Exit 77 (skipped, with the reason)
# when the package cannot be installed; 1 on a failed check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
recording="${2:-$root/bench/data/synthetic_space.json}"
memtune="$build/cli/memtune"
[[ -x "$memtune" ]] || { echo "check_kernel_tuner_interop: $memtune not built" >&2; exit 1; }
venv="${KT_VENV:-/tmp/kt-venv}"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import kernel_tuner" 2>/dev/null; then
  log="$(mktemp)"
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q kernel_tuner; } >"$log" 2>&1; then
    echo "check_kernel_tuner_interop: skipped: kernel_tuner cannot be installed here (pip into $venv:" \
         "$(tail -1 "$log"))"
    rm -f "$log"
    exit 77
  fi
  rm -f "$log"
fi
command -v g++ >/dev/null || { echo "check_kernel_tuner_interop: skipped: no g++ for Kernel Tuner's C backend"; exit 77; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 1. Kernel Tuner's own files.
"$venv/bin/python" - "$work" <<'PY'
import contextlib, io, json, os, sys, warnings
import numpy as np
import kernel_tuner
from kernel_tuner import file_utils

work = sys.argv[1]
# "uses too much shared data" is how Kernel Tuner recognises a configuration
# that fails to compile (and skips it) rather than a broken kernel.
source = r'''
#include <chrono>
extern "C" float add(float *c, const float *a, const float *b, int n) {
#if block_size_x == 3
#error "uses too much shared data (block_size_x 3 fails on purpose)"
#endif
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; i += block_size_x)
    for (int j = i; j < i + block_size_x && j < n; ++j) c[j] = a[j] * scale + b[j];
  return std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
'''
n = np.int32(4096)
a = np.random.randn(n).astype(np.float32)
b = np.random.randn(n).astype(np.float32)
c = np.zeros_like(a)
params = {"block_size_x": [1, 2, 3], "scale": [0.5, 1.5]}
with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
    warnings.simplefilter("ignore")
    results, env = kernel_tuner.tune_kernel("add", source, n, [c, a, b, n], params, lang="C", iterations=3,
                                            cache=os.path.join(work, "kt_cache.json"), quiet=True)
file_utils.store_output_file(os.path.join(work, "kt_t4.json"), results, params)
failed = [r for r in results if "__error__" in r]
print(f"kernel_tuner {kernel_tuner.__version__}: tuned add with g++, {len(results)} configurations, {len(failed)} failed")
assert len(results) == 6 and len(failed) == 2, results
text = open(os.path.join(work, "kt_cache.json")).read().rstrip()
assert text.endswith("}\n}"), "Kernel Tuner closed its cache differently: " + text[-20:]
open(os.path.join(work, "kt_cache_open.json"), "w").write(text[:-len("}\n}")] + ",")
PY

# 2. Imported: the closed cache, the open one, the T4 file.
"$memtune" import "$work/kt_cache.json" -o "$work/from_cache.json"
"$memtune" import "$work/kt_cache_open.json" -o "$work/from_open.json"
"$memtune" import "$work/kt_t4.json" -o "$work/from_t4.json" --template add
# 3. Exported back.
"$memtune" export "$work/from_cache.json" --format kernel_tuner -o "$work/memtune_cache.json"
# 4. A memtune recording, exported.
"$memtune" export "$recording" --format kernel_tuner -o "$work/recording_cache.json"

"$venv/bin/python" - "$work" "$recording" <<'PY'
import contextlib, io, json, math, os, shutil, sys, warnings
import kernel_tuner

work, recording = sys.argv[1], sys.argv[2]
failures = 0
def check(what, ok):
    global failures
    print(("ok:     " if ok else "FAILED: ") + what)
    failures += not ok

def trials(path):
    d = json.load(open(path))
    return {json.dumps(t["config"], sort_keys=True): (t["status"], t.get("time_s")) for t in d["trials"]}

kt = json.load(open(os.path.join(work, "kt_cache.json")))["cache"]
expected = {}
for entry in kt.values():
    status = "compile_failed" if entry.get("__error__") == "CompilationFailedConfig" else "ok"
    expected[(entry["block_size_x"], entry["scale"])] = (status, entry.get("time"))
for name in ("from_cache.json", "from_open.json", "from_t4.json"):
    rec = json.load(open(os.path.join(work, name)))
    # memtune writes a categorical value (the float scale) as its label.
    got = {(t["config"]["block_size_x"], float(t["config"]["scale"])): (t["status"], t.get("time_s"))
           for t in rec["trials"]}
    check(f"{name}: {len(got)} trials, statuses and times as Kernel Tuner's", got.keys() == expected.keys() and all(
        got[k][0] == expected[k][0] and (expected[k][1] is None or abs(got[k][1] * 1e3 - expected[k][1]) <= 1e-9 * expected[k][1])
        for k in expected))

def replay(cache_path):
    cache = json.load(open(cache_path))
    keys = cache["tune_params_keys"]
    recorded = set(cache["cache"])
    def in_cache(p):  # only the recorded configurations exist (memtune's constraints pruned the rest)
        return ",".join(str(p[k]) for k in keys) in recorded
    copy = cache_path[:-len(".json")] + "_replay.json"
    shutil.copy(cache_path, copy)  # tune_kernel reopens a cache for appending
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        results, _ = kernel_tuner.tune_kernel(
            cache["kernel_name"], "/* replayed from memtune export */", cache["problem_size"], [], cache["tune_params"],
            restrictions=in_cache, strategy="brute_force", cache=copy, simulation_mode=True, quiet=True)
    return cache, results

# 3. memtune's export of Kernel Tuner's cache, read by Kernel Tuner.
exported, results = replay(os.path.join(work, "memtune_cache.json"))
check("export keeps the float parameter a float: scale " + json.dumps(exported["tune_params"]["scale"]),
      all(isinstance(v, float) for v in exported["tune_params"]["scale"]))
check("export's keys are Kernel Tuner's", set(exported["cache"]) == set(kt))
ok = [r for r in results if "__error__" not in r]
bad = [r for r in results if "__error__" in r]
best_kt = min(e["time"] for e in kt.values() if "__error__" not in e)
check(f"Kernel Tuner reads memtune's export: {len(results)} configurations, {len(bad)} failed",
      len(results) == len(kt) and len(bad) == sum("__error__" in e for e in kt.values()))
check("the same best time", abs(min(r["time"] for r in ok) - best_kt) <= 1e-9 * best_kt)

# 4. A memtune recording, exported and read by Kernel Tuner.
rec = json.load(open(recording))
_, results = replay(os.path.join(work, "recording_cache.json"))
ok_kt = [r for r in results if "__error__" not in r and isinstance(r["time"], (int, float)) and math.isfinite(r["time"])]
ok_rec = [t for t in rec["trials"] if t["status"] == "ok"]
check(f"Kernel Tuner reads the export of {os.path.basename(recording)}: {len(results)} configurations "
      f"({len(ok_kt)} ok) of {len(rec['trials'])} ({len(ok_rec)} ok)",
      len(results) == len(rec["trials"]) and len(ok_kt) == len(ok_rec))
best_rec = min(t["time_s"] for t in ok_rec)
check("the same best time", abs(min(r["time"] for r in ok_kt) / 1e3 - best_rec) <= 1e-9 * best_rec)
print(f"kernel_tuner interop: {'all passed' if not failures else str(failures) + ' failed'}")
sys.exit(1 if failures else 0)
PY
