#!/usr/bin/env bash
# Regenerates the report screenshots in docs/report/ (one per template, shown
# by README.md and docs/report.md, then one space on two GPUs and one run on
# several GPUs) from the recordings in bench/data, checked
# in headless Chromium like the tests check them. The filter page also shows
# the model's prediction of the same space (a modeled recording, compiled
# here with NVRTC: about half a minute cold) and the search benchmark's
# convergence curves.
#
#   scripts/report_screenshots.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
memtune="$build/cli/memtune"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
data="$root/bench/data"
target="$data/targets/h100_probed_target.json"

"$memtune" filter --n 16M --target h100-sxm --record "$work/h100_filter_16M_modeled.json" -q > /dev/null
"$build/bench/search/memtune_search_bench" "$data/h100_filter_16M.json" --seeds 30 --strategies random,bayes,bayes+model \
  --json > "$work/search_bench_filter.json" 2> /dev/null
"$memtune" report "$data/h100_filter_16M.json" "$work/h100_filter_16M_modeled.json" "$work/search_bench_filter.json" \
  "$target" -o "$work/filter.html"
"$memtune" report "$data/h100_aos_soa_read_16M.json" "$target" -o "$work/aos_soa.html"
"$memtune" report "$data/h100_matvec_col_8192.json" "$target" -o "$work/matvec.html"
"$memtune" report "$data/h100_fdtd_512x512x256_r4.json" "$target" -o "$work/fdtd.html"
"$memtune" report "$data/h100_probe_bank.json" -o "$work/probe.html"
# One space on two GPUs: a trajectory each and the same configurations' times against each other.
"$memtune" report "$data/catalogue/h100_filter_16M.json" "$data/catalogue/h200_filter_16M.json" "$target" \
  -o "$work/two_gpu.html"
# One run shared among several GPUs (the test fixture: trials carry their GPU): the GPU column.
"$memtune" report "$root/tests/assets/recordings/two_gpu_aos_soa.json" -o "$work/multi_gpu.html"
python3 "$root/scripts/check_report_html.py" "$work"/{filter,aos_soa,matvec,fdtd,probe,two_gpu,multi_gpu}.html \
  --screenshots "$root/docs/report" --height 2600
