# The L2 fabric and sector counts of a copy and of filter_direct at 1, 13, 21 and 33 taps under
# Nsight Compute (bench/experiments/l2_fabric.cu; docs/results-wave2.md, 2026-11-27 fourth session).
# Run from the repository root on a GPU machine: bash bench/experiments/l2_fabric.sh
set -e
M=gpu__time_duration.sum,lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,l1tex__m_xbar2l1tex_read_sectors.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.avg.pct_of_peak_sustained_elapsed,lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed,lts__d_sectors.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed
for T in 1 13 21 33; do
  nvcc -O3 -std=c++17 -arch=sm_90 -DMEMTUNE_TAPS=$T -I. -o /tmp/l2f$T bench/experiments/l2_fabric.cu &
done; wait
for T in 1 13 21 33; do
  echo "=== taps $T"
  ncu --clock-control none --cache-control none -k regex:"copy4|filter_direct" --launch-skip 2 --launch-count 3 --metrics $M --csv /tmp/l2f$T 2>/dev/null | grep -v "^==" | python3 -c "
import csv,sys
rows=[r for r in csv.reader(sys.stdin) if r]
rows=rows[next(i for i,r in enumerate(rows) if 'Metric Name' in r):]; h=rows[0]; k=h.index('Kernel Name'); m=h.index('Metric Name'); v=h.index('Metric Value')
cur=None
for r in rows[1:]:
  if r[k]!=cur: cur=r[k]; print(' ', cur[:60])
  print('     %-75s %s'%(r[m], r[v]))
"
done
