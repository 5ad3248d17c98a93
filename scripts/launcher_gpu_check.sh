#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the application side of kernel descriptions
# in one go (about 5 minutes on an H100, build included).
#   1. builds the CLI, the GPU tests, the two example applications and the start-up benchmark;
#   2. runs the launcher's GPU tests (every template and user kernels on the
#      test's own buffers at odd sizes, scratch, the configuration chain);
#   3. `memtune tune --spec` on the three user kernels in examples/kernels,
#      whole grids measured and verified, printing each run's table;
#   4. filter_app and dot_app twice each: the first start tunes and saves, the second loads;
#   5. the start-up benchmark on the built-in filter and on dot_app's kernel;
# and prints a short table last. Logs and JSON land in $OUT (or ./launcher-gpu-check-out).
#   scripts/launcher_gpu_check.sh [build-dir]
# The applications also report their MEMTUNE_CONFIG errors: the last check
# pins a value off the filter's axis and expects exit 1 naming the variable.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${1:-build-gpu}
out=${OUT:-launcher-gpu-check-out}
mkdir -p "$out"
# A compile cache of its own beside the build, not in $out (thousands of
# CUBINs are no result): cold on the first run; the start-up runs warm it
# themselves. A second run of the script reuses the build and this cache.
export MEMTUNE_CACHE_DIR="$build/launcher-check-cache"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_gpu_tests memtune_filter_app memtune_dot_app \
  memtune_startup_bench >"$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }

echo "== GPU tests: the typed launcher on every template and on user kernels"
"$build/tests/memtune_gpu_tests" -tc='launcher:*' >"$out/launcher_tests.log" 2>&1
tests_status=$?
tail -4 "$out/launcher_tests.log"

specs=(transpose histogram stencil)
for k in "${specs[@]}"; do
  echo
  echo "== memtune tune --spec examples/kernels/$k/$k.json (whole grid, measured, verified)"
  "$build/cli/memtune" tune --spec "examples/kernels/$k/$k.json" --save "$out/spec_profiles.json" -q \
    >"$out/spec_$k.txt" 2>&1
  echo $? >"$out/spec_$k.exit"
  cat "$out/spec_$k.txt"
done

run_app() { # log command...: runs an example application, keeps its output and exit status
  local log=$1
  shift
  "$@" >"$out/$log.txt" 2>&1
  echo $? >"$out/$log.exit"
  sed 's/^/  /' "$out/$log.txt"
}
echo
echo "== filter_app: first start (tunes, saves), second start (loads)"
rm -f "$out/filter_app.memtune.json" "$out/dot_app.memtune.json"
run_app filter_app_1 "$build/examples/memtune_filter_app" 4194304 "$out/filter_app.memtune.json"
run_app filter_app_2 "$build/examples/memtune_filter_app" 4194304 "$out/filter_app.memtune.json"
echo "== dot_app: first start (tunes, saves), second start (loads)"
run_app dot_app_1 "$build/examples/memtune_dot_app" 16777216 "$out/dot_app.memtune.json"
run_app dot_app_2 "$build/examples/memtune_dot_app" 16777216 "$out/dot_app.memtune.json"
echo "== filter_app with a MEMTUNE_CONFIG off the filter's axis (expects exit 1 naming the variable)"
MEMTUNE_CONFIG='{"block_size": 100}' run_app filter_app_pinned "$build/examples/memtune_filter_app" 4194304 \
  "$out/filter_app.memtune.json"

for k in filter dot; do
  echo
  echo "== start-up benchmark: $k (20 fresh processes, warm cache, profile hit)"
  "$build/bench/startup/memtune_startup_bench" --kernel "$k" --runs 20 --dir "$out/startup_$k" \
    --json "$out/startup_$k.json" 2>&1 | tee "$out/startup_$k.txt"
done

echo
echo "== summary"
python3 - "$out" "$tests_status" "${specs[@]}" <<'PY'
import json, os, re, sys
out, tests_status, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def text(name):
    try: return open(os.path.join(out, name)).read()
    except OSError: return ""
log = text("launcher_tests.log")
m = re.search(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed", log)
print(f"{'check':<34} result")
print(f"{'GPU tests (launcher:*)':<34} exit {tests_status}" + (f", {m.group(2)}/{m.group(1)} passed" if m else ""))
try: profiles = json.load(open(os.path.join(out, "spec_profiles.json")))["entries"]
except Exception: profiles = []
for k in specs:
    t = text(f"spec_{k}.txt")
    evaluated = re.search(r"(\d+) configurations evaluated", t)
    failures = re.search(r"^failures:(.*)$", t, re.M)
    best = [e for e in profiles if e["template"] == f"user_{k}"]
    b = best[-1] if best else None
    cfg = " ".join(f"{a}={v}" for a, v in b["config"].items()) if b else "-"
    print(f"{'tune --spec ' + k:<34} exit {text(f'spec_{k}.exit').strip() or '?'}, "
          f"{evaluated.group(1) if evaluated else '?'} evaluated, failures:{failures.group(1) if failures else ' none'}; "
          + (f"best {cfg}: {b['gbps']:.0f} GB/s, {100 * b['fraction_of_ceiling']:.1f}% of the copy ceiling" if b else "no best"))
for app in ("filter_app", "dot_app"):
    for run in (1, 2):
        t = text(f"{app}_{run}.txt")
        origin = re.search(r"configuration \(([^)]*\)?)\)", t)
        startup = re.search(r"start-up: (.*)", t)
        print(f"{app + ' start ' + str(run):<34} exit {text(f'{app}_{run}.exit').strip() or '?'}, "
              f"origin {origin.group(1) if origin else '?'}; {startup.group(1) if startup else ''}")
t = text("filter_app_pinned.txt")
pinned_ok = text("filter_app_pinned.exit").strip() == "1" and "MEMTUNE_CONFIG: field 'block_size'" in t
print(f"{'filter_app, bad MEMTUNE_CONFIG':<34} {'ok' if pinned_ok else 'WRONG'}: exit "
      f"{text('filter_app_pinned.exit').strip() or '?'}, {t.strip().splitlines()[-1] if t.strip() else ''}")
for k in ("filter", "dot"):
    try: j = json.load(open(os.path.join(out, f"startup_{k}.json")))
    except Exception: print(f"{'start-up ' + k:<34} no result"); continue
    p = j["phases_ms"]
    verdict = "PASS" if j["memtune_ms"] <= j["budget_ms"] else "OVER"
    print(f"{'start-up ' + k:<34} memtune {j['memtune_ms']:.2f} ms ({verdict} <= {j['budget_ms']:.0f}): exec->main "
          f"{p.get('exec_to_main', 0):.2f}, lookup {p.get('lookup', 0):.2f}, load {p.get('load', 0):.2f}, first launch "
          f"{p.get('first_launch', 0):.2f}; context {p.get('driver_context', 0):.1f} ms; exec->exit "
          f"{j['exec_to_exit_ms']:.0f} ms; NVRTC loaded in {j['nvrtc_loads']}/{j['runs']} runs; origin {j['origin']}")
PY
