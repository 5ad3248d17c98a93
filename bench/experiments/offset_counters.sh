#!/usr/bin/env bash
# Times the offset probe's kernel for every offset, then reads L1/L2/DRAM
# counters with Nsight Compute for a few offsets (one cold launch each).
#   bench/experiments/offset_counters.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")"
out=${1:-offset-counters}
mkdir -p "$out"
nvcc -O3 -arch=native -o "$out/offset_counters" offset_counters.cu
"$out/offset_counters" | tee "$out/times.txt"
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
m=$m,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
m=$m,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum
m=$m,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
m=$m,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
m=$m,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors.sum,lts__t_requests.sum
for s in 0 1 4 8 15 16 17 24 31 32; do
  "$ncu" --clock-control none --kernel-name probe_offset --launch-skip 1 --launch-count 1 --metrics "$m" \
    --print-units base --csv "$out/offset_counters" "$s" > "$out/ncu_$s.csv" 2>/dev/null || true
done
python3 - "$out" <<'PY' | tee "$out/counters.txt"
import csv, glob, os, re, sys
folder = sys.argv[1]
files = sorted(glob.glob(os.path.join(folder, "ncu_*.csv")), key=lambda f: int(re.findall(r"ncu_(\d+)", f)[0]))
for f in files:
    rows = [l for l in open(f) if l.startswith('"')]
    vals = {r["Metric Name"]: r["Metric Value"] for r in csv.DictReader(rows)}
    s = re.findall(r"ncu_(\d+)", f)[0]
    print(f"offset {s:>2}: " + "  ".join(f"{k.replace('.sum', '')}={v}" for k, v in sorted(vals.items())))
PY
