#!/usr/bin/env bash
# Regenerates the report screenshots in docs/report/ (one per template, shown
# by README.md and docs/report.md) from the recordings in bench/data, checked
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
python3 "$root/scripts/check_report_html.py" "$work"/{filter,aos_soa,matvec,fdtd,probe}.html \
  --screenshots "$root/docs/report" --height 2600
