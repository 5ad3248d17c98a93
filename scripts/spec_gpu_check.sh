#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the kernel-description path in one go.
# Builds, runs the GPU tests of the generic workload, of user kernels from
# description files and of the built-in templates (now descriptions), then
# `memtune tune --spec` on the test kernels written as a user would, and
# prints a short table last.
#   scripts/spec_gpu_check.sh [build-dir]      (logs in $OUT, or ./spec-gpu-check-out)
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-spec-gpu-check-out}
mkdir -p "$out"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_gpu_tests >"$out/build.log" 2>&1 ||
  { tail -50 "$out/build.log"; exit 1; }

echo "== GPU tests: generic workload, verification, user kernels, the five templates"
"$build/tests/memtune_gpu_tests" -sf='*described_workload*,*tune_spec*,*device_verifier*,*filter_gpu*,*matvec_gpu*,*aos_soa_gpu*,*fdtd_gpu*,*transpose_gpu*' \
  >"$out/gpu_tests.log" 2>&1
tests_status=$?
tail -4 "$out/gpu_tests.log"

assets=tests/assets/descriptions
rows=()
for run in "transpose:--set rows=8K,cols=8K" "scale:--set n=64M" "saxpy:--set n=64M"; do
  name=${run%%:*}
  args=${run#*:}
  # shellcheck disable=SC2086
  "$build/cli/memtune" tune --spec "$assets/$name.json" $args --json -q >"$out/spec_$name.json" 2>"$out/spec_$name.err"
  status=$?
  # shellcheck disable=SC2086
  "$build/cli/memtune" tune --spec "$assets/$name.json" $args -q >"$out/spec_$name.txt" 2>&1
  rows+=("$name $status")
done

echo
echo "== summary (tune --spec, measured and verified; tables in $out/spec_*.txt)"
python3 - "$out" "${rows[@]}" <<'PY'
import json, os, sys
out = sys.argv[1]
print(f"{'kernel':<10} {'exit':>4} {'configs':>8} {'failed':>7} {'best':<36} {'GB/s':>7} {'%ceil':>6}")
for row in sys.argv[2:]:
    name, status = row.split()
    try:
        j = json.load(open(os.path.join(out, f"spec_{name}.json")))
        best = j.get("best")
        cfg = " ".join(f"{k}={v}" for k, v in best["config"].items()) if best else "-"
        print(f"{name:<10} {status:>4} {j['evaluated']:>8} {len(j['failures']):>7} {cfg:<36} "
              f"{best['gbps'] if best else 0:>7.0f} {100 * best['fraction_of_ceiling'] if best else 0:>6.1f}")
    except Exception as e:
        print(f"{name:<10} {status:>4} no result ({e})")
PY
echo "gpu tests exit: $tests_status"
[ "$tests_status" -eq 0 ]
