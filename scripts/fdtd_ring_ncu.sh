#!/usr/bin/env bash
# Where the fdtd ring's time goes on the local GPU, by Nsight Compute: five
# ring configurations that the model predicts alike (DRAM-bound, ~188-197 us
# on an H100) but that the wave 2 H100 recording spreads over 189-242 us by
# copy kind (bulk / cp_async), prefetch depth (4 / 3) and tile (128x16 /
# 128x8), plus the model's H100 pick (issue 14, docs/model.md "What is left").
#
# Per configuration: memtune measures it (--json: the measured time and the
# model's DRAM bytes, bound and bytes in flight per SM), then ncu profiles one
# launch of fdtd_ring with --clock-control none:
#   - DRAM bytes read / written and DRAM throughput (% of peak): is the ring at
#     the copy ceiling, or short of it (latency / bytes in flight)?
#   - L2 sectors read / written, all source units and the L1 (tex) unit alone:
#     bulk copies (TMA) do not come through L1, so the two differ by the TMA's
#     sectors; the model counts every copied box sector as L2 -> SM traffic.
#   - L2 write requests from L1: the model charges 2.1 line reads per request.
#   - L2 hit rate: how much of the box's halo the neighbours' planes serve.
#   - LSU global / cp.async (LDGSTS) requests, warp instructions, warps active.
#   - the top warp stall reasons (WarpStateStats): long scoreboard / barrier
#     (waiting for copies) against issue-side stalls.
# Metrics this GPU's ncu does not know are left out (ncu --query-metrics), so
# one missing name does not lose the run.
#
# Usage: scripts/fdtd_ring_ncu.sh [BUILD_DIR] [OUT_DIR]
# Builds the memtune CLI in BUILD_DIR (default build) when it is not there.
# What to look for, per row: DRAM GB/s against the copy ceiling (a latency-
# limited ring reads far below it with the same DRAM bytes); L2 read sectors
# per copy kind against the model's box sectors; the stall reason that
# separates prefetch 3 from 4 and cp_async from bulk.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-${OUT:-.}/fdtd-ring-ncu}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
memtune=$build/cli/memtune
mkdir -p "$out"
if [ ! -x "$memtune" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda > "$out/cmake.log" 2>&1
  cmake --build "$build" -j"$(nproc)" --target memtune_cli > "$out/build.log" 2>&1
fi

# name|--only list|wave 2 H100 recording [us]
configs=(
  "best: 128x16 bulk pf4|scheme=ring,bx=32,by=16,vx=4,ky=1,prefetch=4,zu=9,zsplit=1,copy=bulk,min_warps=0,pad=0|189.1"
  "prefetch 3|scheme=ring,bx=32,by=16,vx=4,ky=1,prefetch=3,zu=9,zsplit=1,copy=bulk,min_warps=0,pad=0|209.0"
  "cp_async|scheme=ring,bx=32,by=16,vx=4,ky=1,prefetch=4,zu=9,zsplit=1,copy=cp_async,min_warps=0,pad=0|242.0"
  "tile 128x8 (H200 best)|scheme=ring,bx=32,by=8,vx=4,ky=1,prefetch=4,zu=9,zsplit=1,copy=bulk,min_warps=0,pad=0|216.7"
  "model's H100 pick|scheme=ring,bx=32,by=8,vx=4,ky=2,prefetch=3,zu=9,zsplit=1,copy=bulk,min_warps=16,pad=0|218.1"
)
wanted=(gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum
  dram__throughput.avg.pct_of_peak_sustained_elapsed
  lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum
  lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
  lts__t_requests_srcunit_tex_op_write.sum lts__t_sector_hit_rate.pct
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum smsp__inst_executed.sum
  sm__warps_active.avg.pct_of_peak_sustained_active)
"$ncu" --query-metrics > "$out/known_metrics.txt" 2>&1 || true
metrics=""
for m in "${wanted[@]}"; do
  base=${m%.*}
  if grep -q "^$base[[:space:]]" "$out/known_metrics.txt"; then metrics=$metrics${metrics:+,}$m
  else echo "ncu does not know $base: left out" | tee -a "$out/left_out.txt"; fi
done

i=0
for entry in "${configs[@]}"; do
  IFS='|' read -r name only recorded <<< "$entry"
  "$memtune" fdtd --only "$only" --json -q > "$out/$i.json" 2> "$out/$i.memtune.log" || true
  "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:fdtd_ring<" --launch-count 1 \
    --metrics "$metrics" --section WarpStateStats --print-units base --csv --log-file "$out/$i.csv" \
    "$memtune" fdtd --only "$only" -q > "$out/$i.ncu.log" 2>&1 || true
  i=$((i + 1))
done

python3 - "$out" "${configs[@]}" <<'PY'
import csv, json, os, sys
folder, configs = sys.argv[1], sys.argv[2:]

def ncu_values(path):
    vals, stalls = {}, []
    try:
        rows = [l for l in open(path, errors="replace") if l.startswith('"')]
    except OSError:
        return vals, stalls
    for r in csv.DictReader(rows):
        name, value = r.get("Metric Name") or "", (r.get("Metric Value") or "").replace(",", "")
        try:
            v = float(value)
        except ValueError:
            continue
        if "stall" in name.lower() or "Stall" in name:
            stalls.append((v, name))
        else:
            vals[name] = v
    return vals, stalls

def get(v, k, scale=1.0):
    return v[k] * scale if k in v else float("nan")

print()
print(f"{'configuration':<24} {'rec us':>6} {'meas us':>7} {'model us':>8} {'ncu us':>6} {'DRAM MB':>7} "
      f"{'model MB':>8} {'DRAM GB/s':>9} {'DRAM %':>6} {'L2 rd Msect':>11} {'tex rd':>7} {'L2 wr req M':>11} "
      f"{'hit %':>5} {'ldgsts M':>8} {'warps %':>7}  top stalls")
for i, entry in enumerate(configs):
    name, only, recorded = entry.split("|")
    meas = model_us = model_mb = float("nan")
    try:
        best = json.load(open(os.path.join(folder, f"{i}.json")))["best"]
        meas = best.get("time_s", float("nan")) * 1e6
        m = best.get("model", {})
        model_us = m.get("predicted_s", float("nan")) * 1e6
        model_mb = m.get("dram_bytes", float("nan")) / 1e6
    except Exception as e:
        print(f"{name:<24} no memtune result ({e}; see {i}.memtune.log)")
    v, stalls = ncu_values(os.path.join(folder, f"{i}.csv"))
    ns = get(v, "gpu__time_duration.sum")
    dram = get(v, "dram__bytes_read.sum") + get(v, "dram__bytes_write.sum")
    gbs = dram / ns if ns == ns and ns > 0 else float("nan")
    top = "; ".join(f"{n.split('__')[-1][:40]} {x:.3g}" for x, n in sorted(stalls, reverse=True)[:3])
    print(f"{name:<24} {float(recorded):>6.1f} {meas:>7.1f} {model_us:>8.1f} {ns / 1e3:>6.1f} {dram / 1e6:>7.0f} "
          f"{model_mb:>8.0f} {gbs:>9.0f} {get(v, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):>6.1f} "
          f"{get(v, 'lts__t_sectors_op_read.sum', 1e-6):>11.2f} {get(v, 'lts__t_sectors_srcunit_tex_op_read.sum', 1e-6):>7.2f} "
          f"{get(v, 'lts__t_requests_srcunit_tex_op_write.sum', 1e-6):>11.2f} {get(v, 'lts__t_sector_hit_rate.pct'):>5.1f} "
          f"{get(v, 'l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum', 1e-6):>8.2f} "
          f"{get(v, 'sm__warps_active.avg.pct_of_peak_sustained_active'):>7.1f}  {top}")
print("\nrec us: the wave 2 H100 recording; meas us: memtune now (median, L2 flushed); ncu us: one launch under ncu.")
print("L2 rd Msect: every source unit (bulk copies come from the TMA, not L1); tex rd: the L1's share alone.")
print(f"logs and raw CSVs: {folder}")
PY
