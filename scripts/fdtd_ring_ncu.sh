#!/usr/bin/env bash
# Where the fdtd ring's time goes on the local GPU, by Nsight Compute: ring
# configurations that the model predicts alike but that measure apart, by copy
# kind (bulk / cp_async), prefetch depth, tile and rows per thread
# (docs/model.md; the H200 figures are in docs/results.md).
#
# Per configuration: memtune measures it (--json: the measured time and the
# model's DRAM bytes), then ncu profiles one launch of fdtd_ring with
# --clock-control none:
#   - DRAM bytes read / written and DRAM throughput (% of peak): is the ring at
#     the copy ceiling, or short of it?
#   - L2 sectors read / written, all source units and the L1 (tex) unit alone,
#     the L2 write requests from L1 (the model charges 2.1 line reads each),
#     the L2 hit rate (how much of the box's halo the neighbours' planes serve);
#   - shared-memory wavefronts and the L1 data banks' read / write utilisation
#     (the ring's y and x neighbours are shared loads, its copies shared
#     writes: one wavefront per SM and clock is the shared-memory bound);
#   - warp instructions, issue slots busy, warps active, and the top warp
#     stall reasons (WarpStateStats).
# Metrics this GPU's ncu does not know are left out (ncu --query-metrics), so
# one missing name does not lose the run.
#
# Usage: [FDTD_SIZE="--nx NX --ny NY --nz NZ"] scripts/fdtd_ring_ncu.sh [BUILD_DIR] [OUT_DIR]
#          ["name|AXIS=V,AXIS=V,..." ...]
# FDTD_SIZE: the volume (memtune fdtd's options; default its own size).
# Builds the memtune CLI in BUILD_DIR (default build) when it is not there.
# Without configurations, the default list below: the H100's and the H200's
# best, their copy-kind twins, and the 128x16 tile with two rows a thread.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-${OUT:-.}/fdtd-ring-ncu}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
memtune=$build/cli/memtune
read -r -a size <<< "${FDTD_SIZE:-}"
mkdir -p "$out"
if [ ! -x "$memtune" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda > "$out/cmake.log" 2>&1
  cmake --build "$build" -j"$(nproc)" --target memtune_cli > "$out/build.log" 2>&1
fi

# name|--only list
ring=scheme=ring,vx=4,zu=9,zsplit=1,zfill=0,pad=0
configs=("${@:3}")
[ ${#configs[@]} -gt 0 ] || configs=(
  "128x16 bulk pf4 (H100 best)|$ring,bx=32,by=16,ky=1,prefetch=4,copy=bulk,min_warps=0"
  "128x16 cp_async pf4|$ring,bx=32,by=16,ky=1,prefetch=4,copy=cp_async,min_warps=0"
  "128x8 bulk pf4 mw16 (H200 best)|$ring,bx=32,by=8,ky=1,prefetch=4,copy=bulk,min_warps=16"
  "128x8 cp_async pf4 mw16|$ring,bx=32,by=8,ky=1,prefetch=4,copy=cp_async,min_warps=16"
  "128x16 ky2 cp_async pf4|$ring,bx=32,by=8,ky=2,prefetch=4,copy=cp_async,min_warps=0"
  "128x16 ky2 bulk pf4|$ring,bx=32,by=8,ky=2,prefetch=4,copy=bulk,min_warps=0"
)
wanted=(gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum
  dram__throughput.avg.pct_of_peak_sustained_elapsed
  lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum
  lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_write.sum
  lts__t_requests_srcunit_tex_op_write.sum lts__t_sector_hit_rate.pct
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum l1tex__data_pipe_lsu_wavefronts.sum smsp__inst_executed.sum
  sm__warps_active.avg.pct_of_peak_sustained_active smsp__issue_active.avg.pct_of_peak_sustained_active
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed
  l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed sm__cycles_elapsed.avg)
for reason in long_scoreboard short_scoreboard barrier mio_throttle lg_throttle wait math_pipe_throttle not_selected \
  dispatch_stall membar sleeping no_instruction branch_resolving; do
  wanted+=("smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio")
done
"$ncu" --query-metrics > "$out/known_metrics.txt" 2>&1 || true
metrics=""
for m in "${wanted[@]}"; do
  base=${m%%.*} # the name without its rollup and submetric suffixes
  if grep -q "^$base[[:space:]]" "$out/known_metrics.txt"; then metrics=$metrics${metrics:+,}$m
  else echo "ncu does not know $base: left out" | tee -a "$out/left_out.txt"; fi
done

i=0
for entry in "${configs[@]}"; do
  IFS='|' read -r name only <<< "$entry"
  "$memtune" fdtd "${size[@]}" --only "$only" --json -q > "$out/$i.json" 2> "$out/$i.memtune.log" || true
  "$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:fdtd_ring<" --launch-count 1 \
    --metrics "$metrics" --section WarpStateStats --print-units base --csv --log-file "$out/$i.csv" \
    "$memtune" fdtd "${size[@]}" --only "$only" -q > "$out/$i.ncu.log" 2>&1 || true
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
        if name.startswith("smsp__average_warps_issue_stalled_"):
            stalls.append((v, name[len("smsp__average_warps_issue_stalled_"):].split("_per_issue")[0]))
        else:
            vals[name] = v
    return vals, stalls

def get(v, k, scale=1.0):
    return v[k] * scale if k in v else float("nan")

columns = ("meas us", "model us", "ncu us", "DRAM GB/s", "DRAM %", "L2 rd Msect", "hit %", "instr M", "issue %",
           "smem wf M", "smem wf %", "bank rd %", "bank wr %", "warps %")
print()
print(f"{'configuration':<34} " + " ".join(f"{c:>{max(7, len(c))}}" for c in columns) + "  top stalls (cycles per issue)")
for i, entry in enumerate(configs):
    name, only = entry.split("|")[:2]
    meas = model_us = sms = float("nan")
    try:
        run = json.load(open(os.path.join(folder, f"{i}.json")))
        best, sms = run["best"], run["device"]["sm_count"]
        meas = best.get("time_s", float("nan")) * 1e6
        model_us = best.get("model", {}).get("predicted_s", float("nan")) * 1e6
    except Exception as e:
        print(f"{name:<34} no memtune result ({e}; see {i}.memtune.log)")
    v, stalls = ncu_values(os.path.join(folder, f"{i}.csv"))
    ns = get(v, "gpu__time_duration.sum")
    dram = get(v, "dram__bytes_read.sum") + get(v, "dram__bytes_write.sum")
    wavefronts = get(v, "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum")
    # one shared-memory wavefront per SM and clock: wavefronts against the SMs' elapsed cycles
    busy = 100 * wavefronts / (get(v, "sm__cycles_elapsed.avg") * sms)
    values = (meas, model_us, ns / 1e3, dram / ns if ns > 0 else float("nan"),
              get(v, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), get(v, "lts__t_sectors_op_read.sum", 1e-6),
              get(v, "lts__t_sector_hit_rate.pct"), get(v, "smsp__inst_executed.sum", 1e-6),
              get(v, "smsp__issue_active.avg.pct_of_peak_sustained_active"), wavefronts * 1e-6, busy,
              get(v, "l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed"),
              get(v, "l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed"),
              get(v, "sm__warps_active.avg.pct_of_peak_sustained_active"))
    top = "; ".join(f"{n} {x:.2f}" for x, n in sorted(stalls, reverse=True)[:4])
    print(f"{name:<34} " + " ".join(f"{x:>{max(7, len(c))}.1f}" for x, c in zip(values, columns)) + f"  {top}")
print("\nmeas us: memtune (median, L2 flushed); ncu us: one launch under ncu; L2 rd Msect: every source unit (bulk")
print("copies come from the TMA, not L1); smem wf %: shared-memory wavefronts per SM and elapsed cycle.")
print(f"logs and raw CSVs: {folder}")
PY
