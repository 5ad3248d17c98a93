#!/usr/bin/env bash
# Compares the model's shared-memory bank conflicts for filter configurations
# with Nsight Compute's counters on the local GPU. For each configuration:
#   1. `memtune filter --only ...` measures exactly that configuration and
#      reports the model's wavefronts for the launch (--json);
#   2. ncu profiles the first launch of the filter kernel in the same command
#      (every filter launch is that configuration: --only leaves one) and reads
#      l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum.
# The simulated count is wavefronts - ideal wavefronts over all shared-memory
# instructions (loads and stores), against ncu's ld + st.
#
# ncu demangles the name as "void filter_kernel<(int)256, ...>(...)", hence the
# unanchored regex.
# Usage: scripts/filter_ncu_validation.sh [BUILD_DIR] [OUT_DIR]
# n = 2^20: every block is full, so the simulated representative block is
# every block.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-filter-ncu}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
memtune=$build/cli/memtune
n=1048576
mkdir -p "$out"
configs=(
  "block_size=256,packing=1,items=1,vec=1,align=0"
  "block_size=128,packing=2,items=1,vec=1,align=0"
  "block_size=256,packing=1,items=4,vec=4,align=1"
  "block_size=128,packing=1,items=4,vec=4,align=1"
  "block_size=256,packing=2,items=4,vec=2,align=1"
  "block_size=512,packing=1,items=8,vec=2,align=0"
  "block_size=64,packing=4,items=2,vec=2,align=1"
)
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
i=0
for c in "${configs[@]}"; do
  "$memtune" filter --n $n --only "$c" --json -q > "$out/$i.json" || true
  "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:filter_kernel<" --launch-count 1 \
    --metrics "$metrics" --csv --log-file "$out/$i.csv" "$memtune" filter --n $n --only "$c" -q > "$out/$i.stdout" 2>&1 || true
  i=$((i + 1))
done
python3 - "$out" "${configs[@]}" <<'PY'
import csv, json, os, sys
folder, configs = sys.argv[1], sys.argv[2:]
names = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "c_ld",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "c_st",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "w_ld",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "w_st"}
print(f"{'filter config (n = 2^20)':<48} {'sim wavef':>10} {'ncu wavef':>10} {'ncu/sim':>8} {'sim confl':>10} {'ncu c.ld':>9} {'ncu c.st':>9}  wavefronts equal?")
agree = 0
for i, c in enumerate(configs):
    try:
        m = json.load(open(os.path.join(folder, f"{i}.json")))["best"]["model"]
        sim_w = int(round(m["smem_wavefronts"]))
        sim_c = int(round(m["smem_wavefronts"] - m["smem_ideal_wavefronts"]))
    except Exception as e:
        print(f"{c:<48} no measured result ({e})"); continue
    rows = [l for l in open(os.path.join(folder, f"{i}.csv"), errors="replace") if l.startswith('"')]
    v = {}
    for r in csv.DictReader(rows):
        k = names.get(r.get("Metric Name"))
        if k: v[k] = v.get(k, 0) + int(float(r["Metric Value"].replace(",", "")))
    ncu_w = v.get("w_ld", 0) + v.get("w_st", 0) if "w_ld" in v else None
    ok = ncu_w == sim_w
    agree += ok
    ratio = f"{ncu_w / sim_w:.4f}" if ncu_w is not None and sim_w > 0 else "-"
    print(f"{c:<48} {sim_w:>10} {str(ncu_w):>10} {ratio:>8} {sim_c:>10} {str(v.get('c_ld')):>9} {str(v.get('c_st')):>9}  {'yes' if ok else 'NO'}")
print(f"\n{agree} of {len(configs)} filter configurations: simulated shared-memory wavefronts equal ncu's")
PY
