#!/usr/bin/env bash
# Times the offset probe's kernel and its variants (offset_counters.cu) for
# every offset, reads L1/L2/DRAM counters with Nsight Compute for a few offsets
# (one cold launch each), then collects ncu's full set for offsets on both
# sides of 16 and lists every metric whose values at 1..15 and at 16..31 do not
# overlap: the counters that could explain the split, if any does.
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
    --print-units base --csv "$out/offset_counters" rmw "$s" > "$out/ncu_$s.csv" 2>/dev/null || true
done
full_offsets="1 4 8 12 15 16 17 20 24 28 31"
for s in $full_offsets; do
  "$ncu" --clock-control none --kernel-name probe_offset --launch-skip 1 --launch-count 1 --set full \
    --page raw --print-units base --csv "$out/offset_counters" rmw "$s" > "$out/full_$s.csv" 2>/dev/null || true
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
python3 - "$out" $full_offsets <<'PY' | tee "$out/separating.txt"
import csv, os, sys
folder, offsets = sys.argv[1], [int(s) for s in sys.argv[2:]]
values = {}
for s in offsets:
    rows = [l for l in open(os.path.join(folder, f"full_{s}.csv")) if l.startswith('"')]
    if len(rows) < 3: continue
    header, units, data = next(csv.reader([rows[0]])), next(csv.reader([rows[1]])), next(csv.reader([rows[2]]))
    for name, value in zip(header, data):
        try: values.setdefault(name, {})[s] = float(value.replace(",", ""))
        except ValueError: pass
low = [s for s in offsets if s < 16]
high = [s for s in offsets if s >= 16]
found = []
for name, v in values.items():
    if any(s not in v for s in offsets): continue
    a, b = [v[s] for s in low], [v[s] for s in high]
    if max(a) < min(b) or max(b) < min(a):
        gap = (min(b) - max(a)) if max(a) < min(b) else (min(a) - max(b))
        scale = max(abs(x) for x in a + b) or 1
        found.append((gap / scale, name, a, b))
found.sort(reverse=True)
print(f"metrics whose values at offsets {low} and {high} do not overlap: {len(found)} of {len(values)}")
for rel, name, a, b in found:
    print(f"{rel:8.4f} {name}: 1..15 {min(a):.6g}..{max(a):.6g}, 16..31 {min(b):.6g}..{max(b):.6g}")
PY
