#!/usr/bin/env bash
# Checks memtune's Kernel Tuner interop against the kernel_tuner package:
# `memtune export --format kernel_tuner` of a recording is loaded by Kernel
# Tuner (tune_kernel in simulation mode, brute force over the cache: every
# configuration found, the same best), Kernel Tuner's T4 output of that run
# is imported back with `memtune import`, and so is the cache itself; both
# must hold the recording's trials.
#
#   scripts/check_kernel_tuner_interop.sh [build-dir] [recording]
#
# Installs kernel_tuner with pip into a venv ($KT_VENV, default /tmp/kt-venv;
# the one bench/search/run_all.sh uses). No GPU needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
recording="${2:-$root/bench/data/synthetic_space.json}"
memtune="$build/cli/memtune"
[[ -x "$memtune" ]] || { echo "check_kernel_tuner_interop: $memtune not built" >&2; exit 1; }
venv="${KT_VENV:-/tmp/kt-venv}"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import kernel_tuner" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q kernel_tuner
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$memtune" export "$recording" --format kernel_tuner -o "$work/cache.json"
"$memtune" import "$work/cache.json" -o "$work/from_cache.json"
"$venv/bin/python" - "$recording" "$work" <<'PY'
import contextlib, io, json, math, os, shutil, sys, warnings
import kernel_tuner
from kernel_tuner import file_utils

recording, work = sys.argv[1], sys.argv[2]
rec = json.load(open(recording))
cache_path = os.path.join(work, "cache.json")
cache = json.load(open(cache_path))
keys = cache["tune_params_keys"]
recorded = set(cache["cache"])

def in_cache(p):
    # Only the recorded configurations exist (memtune's constraints pruned the rest).
    return ",".join(str(p[k]) for k in keys) in recorded

replay = os.path.join(work, "replay.json")
shutil.copy(cache_path, replay)  # tune_kernel reopens a cache for appending
with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
    warnings.simplefilter("ignore")
    results, env = kernel_tuner.tune_kernel(
        cache["kernel_name"], "/* replayed from memtune export */", cache["problem_size"], [], cache["tune_params"],
        restrictions=in_cache, strategy="brute_force", cache=replay, simulation_mode=True, quiet=True)
ok_kt = [r for r in results if isinstance(r["time"], (int, float)) and math.isfinite(r["time"])]
ok_rec = [t for t in rec["trials"] if t["status"] == "ok"]
best_kt = min(r["time"] for r in ok_kt) / 1e3
best_rec = min(t["time_s"] for t in ok_rec)
print(f"kernel_tuner {getattr(kernel_tuner, '__version__', '?')}: {len(results)} configurations from the export "
      f"({len(ok_kt)} ok); recording: {len(rec['trials'])} ({len(ok_rec)} ok); best {best_kt:.6g} s vs {best_rec:.6g} s")
assert len(results) == len(rec["trials"]), "Kernel Tuner did not find every exported configuration"
assert len(ok_kt) == len(ok_rec), "ok/failed differ"
assert abs(best_kt - best_rec) <= 1e-9 * best_rec, "the best time differs"
file_utils.store_output_file(os.path.join(work, "t4.json"), results, cache["tune_params"])
PY
"$memtune" import "$work/t4.json" -o "$work/from_t4.json" --template "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["template"])' "$recording")"
python3 - "$recording" "$work/from_cache.json" "$work/from_t4.json" <<'PY'
import json, sys
def trials(path):
    d = json.load(open(path))
    return {json.dumps(t["config"], sort_keys=True): (t["status"] == "ok", t.get("time_s")) for t in d["trials"]}
ref = trials(sys.argv[1])
for path in sys.argv[2:]:
    got = trials(path)
    same = sum(1 for k, v in ref.items() if k in got and got[k][0] == v[0] and (v[1] is None or abs(got[k][1] - v[1]) <= 1e-9 * v[1]))
    print(f"{path.split('/')[-1]}: {same} of {len(ref)} trials as recorded")
    assert same == len(ref) == len(got), path
print("kernel_tuner interop: 3 passed, 0 failed")
PY
