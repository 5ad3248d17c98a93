#!/usr/bin/env bash
# Where a filter configuration's time goes, by Nsight Compute's counters: the
# DRAM bytes, the L1 -> L2 sectors and requests of its loads and stores, the
# instructions it issued and the stall reasons of its warps. Used to check the
# time model's bounds (docs/model.md) against the hardware on the local GPU.
#
# Usage: scripts/filter_ncu_memory.sh [BUILD_DIR] [OUT_DIR] [N] [CONFIG ...]
# CONFIG is an --only list ("staging=smem,block_size=256,packing=1,items=4,vec=4,align=1");
# without any, a set that spans the recording's slow and fast families.
# Another template: TEMPLATE="aos_soa --op write" KERNEL=aos_soa_kernel< (the
# kernel's demangled name prefix) and its configurations.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-filter-ncu-memory}
n=${3:-16777216}
shift $(( $# < 3 ? $# : 3 ))
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
memtune=$build/cli/memtune
template=${TEMPLATE:-filter}
kernel=${KERNEL:-filter_kernel<}
configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  configs=(
    "staging=smem,block_size=256,packing=1,items=4,vec=4,align=1"
    "staging=smem,block_size=128,packing=1,items=4,vec=1,align=0"
    "staging=smem,block_size=256,packing=1,items=8,vec=4,align=1"
    "staging=smem,block_size=256,packing=1,items=8,vec=2,align=1"
    "staging=smem,block_size=256,packing=1,items=8,vec=1,align=1"
    "staging=smem,block_size=256,packing=2,items=1,vec=1,align=0"
    "staging=smem,block_size=512,packing=1,items=1,vec=1,align=0"
  )
fi
mkdir -p "$out"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
metrics=$metrics,lts__t_requests_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
i=0
for c in "${configs[@]}"; do
  "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:$kernel" --launch-count 1 \
    --metrics "$metrics" --section WarpStateStats --print-units base --csv --log-file "$out/$i.csv" \
    $memtune $template --n "$n" --only "$c" -q > "$out/$i.stdout" 2>&1 || true
  i=$((i + 1))
done
python3 - "$out" "${configs[@]}" <<'PY'
import csv, os, sys
folder, configs = sys.argv[1], sys.argv[2:]
short = {"gpu__time_duration.sum": "us", "dram__bytes_read.sum": "dram rd MB", "dram__bytes_write.sum": "dram wr MB",
         "lts__t_sectors_srcunit_tex_op_read.sum": "L2 rd sect", "lts__t_sectors_srcunit_tex_op_write.sum": "L2 wr sect",
         "lts__t_requests_srcunit_tex_op_write.sum": "L2 wr req", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "st req",
         "smsp__inst_executed.sum": "warp inst", "sm__warps_active.avg.pct_of_peak_sustained_active": "occ %"}
scale = {"us": 1e-3, "dram rd MB": 1e-6, "dram wr MB": 1e-6}  # --print-units base: ns and bytes
for i, c in enumerate(configs):
    rows = [l for l in open(os.path.join(folder, f"{i}.csv"), errors="replace") if l.startswith('"')]
    vals, stalls = {}, []
    for r in csv.DictReader(rows):
        name, unit, value = r.get("Metric Name"), r.get("Metric Unit", ""), r.get("Metric Value", "")
        try: v = float(value.replace(",", ""))
        except ValueError: continue
        if name in short:
            k = short[name]
            vals[k] = v * scale.get(k, 1)
        elif "Stall" in (name or "") or "stall" in (name or ""):
            stalls.append((v, name))
    print(c)
    print("   " + "  ".join(f"{k}={vals[k]:.4g}" for k in short.values() if k in vals))
    for v, name in sorted(stalls, reverse=True)[:4]:
        print(f"   {name}: {v:.3g}")
PY
