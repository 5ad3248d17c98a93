#!/usr/bin/env bash
# The report in a browser: writes `memtune report` of every recording in
# bench/data (and of the filter recording with the probed target's copy
# ceiling), then checks each page in headless Chromium
# (scripts/check_report_html.py: no console message, no network request, a
# drawn plot in every figure, a screenshot).
#
#   scripts/report_browser_test.sh [build-dir] [out-dir]
#
# Exit 77 (ctest: skipped) when Chromium is not installed or cannot start.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
out="${2:-$build/report-check}"
memtune="$build/cli/memtune"
[[ -x "$memtune" ]] || { echo "report_browser_test: $memtune not built" >&2; exit 1; }
command -v python3 >/dev/null || { echo "report_browser_test: SKIPPED: no python3 to drive Chromium"; exit 77; }
rm -rf "$out"
mkdir -p "$out"
reports=()
for f in "$root"/bench/data/*.json; do
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if "trials" in d else 1)' "$f" || continue
  name="$(basename "$f" .json)"
  "$memtune" report "$f" -o "$out/$name.html" > /dev/null
  reports+=("$out/$name.html")
done
"$memtune" report "$root/bench/data/h100_filter_16M.json" "$root/bench/data/targets/h100_probed_target.json" \
  -o "$out/filter_with_ceiling.html" > /dev/null
reports+=("$out/filter_with_ceiling.html")
exec python3 "$root/scripts/check_report_html.py" "${reports[@]}" --screenshots "$out/screenshots"
