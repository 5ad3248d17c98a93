#!/usr/bin/env bash
# Compares the model's shared-memory bank conflicts for filter configurations
# with Nsight Compute on the local GPU. For each configuration:
#   1. `memtune filter --only ...` measures exactly that configuration and
#      reports the model's wavefronts for the launch (--json);
#   2. ncu profiles the first launch of the filter kernel (every filter launch
#      is that configuration: --only leaves one) twice:
#      - the hardware counters l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum
#        and the shared wavefronts, which also count conflicts between warps
#        that arbitrate for the banks in the same cycle;
#      - the source view (SourceCounters): per SASS instruction, the wavefronts
#        its addresses need and the "excessive" ones beyond one wavefront per
#        128 bytes: the bank conflicts of the addresses alone.
# The simulated count is wavefronts - ideal wavefronts over all shared-memory
# instructions (loads and stores).
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
  "staging=smem,block_size=256,packing=1,items=1,vec=1,align=0"
  "staging=smem,block_size=128,packing=2,items=1,vec=1,align=0"
  "staging=smem,block_size=256,packing=1,items=4,vec=4,align=1"
  "staging=smem,block_size=128,packing=1,items=4,vec=4,align=1"
  "staging=smem,block_size=256,packing=2,items=4,vec=2,align=1"
  "staging=smem,block_size=512,packing=1,items=8,vec=2,align=0"
  "staging=smem,block_size=64,packing=4,items=2,vec=2,align=1"
  "staging=smem,block_size=256,packing=1,items=8,vec=4,align=1"
  "staging=smem,block_size=128,packing=1,items=2,vec=2,align=1"
  "staging=smem,block_size=256,packing=1,items=4,vec=1,align=0"
  "staging=smem,block_size=256,packing=2,items=2,vec=2,align=1"
)
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
i=0
for c in "${configs[@]}"; do
  "$memtune" filter --n $n --only "$c" --json -q > "$out/$i.json" || true
  "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:filter_kernel<" --launch-count 1 \
    --metrics "$metrics" --csv --log-file "$out/$i.csv" "$memtune" filter --n $n --only "$c" -q > "$out/$i.stdout" 2>&1 || true
  "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:filter_kernel<" --launch-count 1 \
    --section SourceCounters --page source --print-source sass --csv \
    "$memtune" filter --n $n --only "$c" -q > "$out/$i.source.csv" 2>&1 || true
  i=$((i + 1))
done
python3 - "$out" "${configs[@]}" <<'PY'
import csv, json, os, sys
folder, configs = sys.argv[1], sys.argv[2:]
names = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "c_ld",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "c_st",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "w_ld",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "w_st"}

def source_totals(path):
    """Sum of the per-instruction shared wavefronts and excessive wavefronts."""
    rows = list(csv.reader(l for l in open(path, errors="replace") if l.startswith('"')))
    header = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if header is None: return None, None
    col = {h: i for i, h in enumerate(rows[header])}
    w = e = 0
    for r in rows[header + 1:]:
        if len(r) != len(rows[header]): continue
        num = lambda k: int(r[col[k]]) if k in col and r[col[k]].isdigit() else 0
        w += num("L1 Wavefronts Shared"); e += num("L1 Wavefronts Shared Excessive")
    return w, e

print(f"{'filter config (n = 2^20)':<48} {'sim wavef':>9} {'ncu hw':>9} {'ncu src':>9} {'sim confl':>9} "
      f"{'hw ld+st':>9} {'src exc':>9}  conflicts equal: hw / source")
hw_equal = src_equal = 0
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
    hw_w = v.get("w_ld", 0) + v.get("w_st", 0) if "w_ld" in v else None
    hw_c = v.get("c_ld", 0) + v.get("c_st", 0) if "c_ld" in v else None
    src_w, src_e = source_totals(os.path.join(folder, f"{i}.source.csv"))
    hw_ok, src_ok = hw_c == sim_c, src_e == sim_c
    hw_equal += hw_ok; src_equal += src_ok
    print(f"{c:<48} {sim_w:>9} {str(hw_w):>9} {str(src_w):>9} {sim_c:>9} {str(hw_c):>9} {str(src_e):>9}  "
          f"{'yes' if hw_ok else 'NO'} / {'yes' if src_ok else 'NO'}")
print(f"\nbank conflicts, simulated = ncu: {hw_equal} of {len(configs)} filter configurations by the hardware "
      f"counters (ld + st), {src_equal} of {len(configs)} by the source view's excessive wavefronts")
PY
