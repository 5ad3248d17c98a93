# The sizes a sweep of each built-in template visits (sourced by
# bench/sweep/sweep_cost.sh and scripts/sweep_gpu_check.sh): 8 log-spaced
# sizes, odd ones in between, where the template's problem allows them:
# 64K to 256M elements (matvec and transpose 1K² to 16K²; the fdtd 64³ to
# 480x480x256, 59M points, the range its sweep figures in docs/sweep.md cover).
#   sweep_over TEMPLATE   -> the --over text; sweep_set TEMPLATE -> extra --set (may be empty)
sweep_over() {
  case $1 in
    filter) echo "n=64K:256M" ;;
    aos_soa) echo "n=64K:256M" ;;
    matvec) echo "rows=1K:16K,cols=1K:16K" ;;
    transpose) echo "rows=1K:16K,cols=1K:16K" ;;
    fdtd) echo "nx=64:480,ny=64:480,nz=64:256" ;;
    */transpose/transpose.json) echo "rows=1K:12K,cols=1K:12K" ;; # examples/kernels: user kernels
    */stencil/stencil.json) echo "nx=1K:12K,ny=1K:12K" ;;
    *) echo "sizes.sh: no sweep for template $1" >&2; return 1 ;;
  esac
}
sweep_set() {
  case $1 in
    aos_soa) echo "--set op=read" ;;
    matvec) echo "--set layout=col" ;;
    *) echo "" ;;
  esac
}
# The search each size gets: bayes stops after `budget` candidates or
# `patience` without a new best. fdtd's grid (1832-2192 configurations) is
# 5-70x the others': 40 candidates found a configuration within 5 % of the
# grid's best at 4 of its 8 sizes on the H200; 180 and 60 missed one size of
# 9, where 3 of 1924 configurations lie within 5 %; 300 and 120 kept all 9
# (the replay of the stop rules and the sweep: docs/sweep.md).
# filter (384): with 40 and 15, 6 of 8 sizes in one run and 8 of 8 in another
# (the best staging, direct or shfl, is close and switches between sizes).
sweep_search() {
  case $1 in
    fdtd) echo "--budget 300 --patience 120" ;;
    filter) echo "--budget 80 --patience 30" ;;
    *) echo "--budget 40 --patience 15" ;;
  esac
}
SWEEP_TEMPLATES="filter aos_soa matvec transpose fdtd"
# Kernels described as a user would (--spec): the same check for them.
SWEEP_SPECS="examples/kernels/transpose/transpose.json examples/kernels/stencil/stencil.json"
