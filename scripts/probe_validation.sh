#!/usr/bin/env bash
# Validates `memtune probe` on a GPU machine:
#   1. runs every probe (tables on stdout) and writes JSON, CSV, recordings and a
#      calibrated target into $OUT;
#   2. for every shared-memory bank variant, runs exactly one launch of its
#      kernel under Nsight Compute and compares ncu's bank-conflict counters with
#      the counts the model's bank simulator predicts for the same addresses.
#
# Usage: scripts/probe_validation.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR defaults to ./build (built here if needed), OUT_DIR to ./probe-validation.
#   NCU (default: ncu on PATH, else /usr/local/cuda/bin/ncu) must be allowed to read
#   performance counters (root, or NVreg_RestrictProfilingToAdminUsers=0).
#   BANK_REPS / BANK_BLOCKS change the bank kernels' size for the ncu runs (default 64 / 132).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-probe-validation}
bank_reps=${BANK_REPS:-64}
bank_blocks=${BANK_BLOCKS:-132}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}

if [ ! -x "$build/cli/memtune" ]; then
  [ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
  cmake --build "$build" -j "$(nproc)" --target memtune_cli
fi
memtune=$build/cli/memtune
mkdir -p "$out"

echo "== memtune probe (all probes, timed, L2 flushed)"
"$memtune" probe --json "$out/probe.json" --csv "$out/csv" --record "$out/record" \
  --save-target "$out/local-probed.json" | tee "$out/probe.txt"

if [ ! -x "$ncu" ]; then
  echo "ncu not found (set NCU=/path/to/ncu): skipping the bank-conflict comparison" >&2
  exit 0
fi

echo
echo "== bank conflicts: model vs ncu (one launch per variant, ${bank_blocks} blocks x 256 threads, ${bank_reps} loads/thread)"
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
variants=$(python3 -c 'import json,sys; print(" ".join(b["variant"]+":"+b["kernel"] for b in json.load(open(sys.argv[1]))["bank"]))' "$out/probe.json")
mkdir -p "$out/ncu"
for vk in $variants; do
  variant=${vk%%:*}
  kernel=${vk#*:}
  # Exactly one launch of one kernel: the simulated counts are per launch.
  "$ncu" --clock-control none --kernel-name "regex:^${kernel}\$" --metrics "$metrics" --csv \
    --log-file "$out/ncu/$variant.csv" \
    "$memtune" probe -q --only "bank:$variant" --launches 1 --bank-reps "$bank_reps" --bank-blocks "$bank_blocks" \
    --json "$out/ncu/$variant.json" > "$out/ncu/$variant.stdout"
done

python3 - "$out/ncu" $variants <<'PY'
import csv, json, sys, os
folder, pairs = sys.argv[1], sys.argv[2:]
ld_m = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
st_m = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
def ncu_values(path):
    rows = [l for l in open(path, encoding="utf-8", errors="replace") if l.startswith('"')]
    vals, kernels = {}, set()
    for r in csv.DictReader(rows):
        name = r.get("Metric Name")
        if name in (ld_m, st_m):
            kernels.add((r.get("ID"), r.get("Kernel Name")))
            vals[name] = vals.get(name, 0) + int(float(r["Metric Value"].replace(",", "")))
    return vals, len(kernels)
print(f"{'variant':<14} {'kernel':<26} {'sim ld':>10} {'sim st':>8} {'ncu ld':>10} {'ncu st':>8}  equal?")
bad = 0
for p in pairs:
    variant, kernel = p.split(":", 1)
    sim = json.load(open(os.path.join(folder, variant + ".json")))["bank"][0]
    s_ld, s_st = sim["simulated_per_launch"]["load_conflicts"], sim["simulated_per_launch"]["store_conflicts"]
    try:
        vals, launches = ncu_values(os.path.join(folder, variant + ".csv"))
    except Exception as e:
        vals, launches = {}, 0
    n_ld, n_st = vals.get(ld_m), vals.get(st_m)
    if launches != 1:
        verdict = f"ncu saw {launches} launches"
    else:
        verdict = "yes" if (n_ld == s_ld and n_st == s_st) else "NO"
    bad += verdict != "yes"
    print(f"{variant:<14} {kernel:<26} {s_ld:>10} {s_st:>8} {str(n_ld):>10} {str(n_st):>8}  {verdict}"
          + ("" if sim["verified"] else "  (output NOT verified)"))
print(f"\n{len(pairs) - bad} of {len(pairs)} variants agree")
PY
