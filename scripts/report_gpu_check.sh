#!/usr/bin/env bash
# One GPU run for the reports: a measured filter run with --report and the live
# progress line (under a pseudo-terminal, as a person sees it), the same run
# with stderr to a file (a line per phase), a probe with its progress line,
# and the reports copied to $OUT for a look in a browser here (Chromium is
# not needed on the GPU machine: the page is self-contained).
#
#   OUT=/tmp/out scripts/report_gpu_check.sh [build-dir]
#
# Prints a short table last. Needs a GPU (exits 3 without, like memtune).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
out="${OUT:-$root/report-gpu-out}"
mkdir -p "$out"
if [[ ! -x "$build/cli/memtune" ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda > "$out/cmake.log"
  cmake --build "$build" -j "$(nproc)" --target memtune_cli > "$out/build.log"
fi
memtune="$build/cli/memtune"

# 1. On a terminal: the line redrawn in place (`script` gives memtune a pty).
script -qfec "$memtune filter --n 16M --report $out/filter_16M.html --record $out/filter_16M_record.json --format json > $out/filter_16M.json" \
  "$out/filter_terminal.typescript" > /dev/null
# 2. Not a terminal: a plain line per phase.
"$memtune" aos_soa --n 16M --op read --report "$out/aos_soa_read.html" > "$out/aos_soa_read.txt" 2> "$out/aos_soa_read.stderr"
# 3. The probe's progress line, on a terminal.
script -qfec "$memtune probe --only copy,bank --format markdown > $out/probe.md" "$out/probe_terminal.typescript" > /dev/null
# 4. The report of the run next to the model's prediction of the same space.
"$memtune" filter --n 16M --target h100-sxm --record "$out/filter_16M_modeled.json" -q > /dev/null
"$memtune" report "$out/filter_16M.json" "$out/filter_16M_modeled.json" -o "$out/filter_vs_model.html" > /dev/null

python3 - "$out" <<'PY'
import json, os, re, sys
out = sys.argv[1]
run = json.load(open(os.path.join(out, "filter_16M.json")))
tty = open(os.path.join(out, "filter_terminal.typescript"), errors="replace").read()
redraws = tty.count("\r\x1b[K")
last = [l for l in re.split(r"\r\x1b\[K|\n", tty) if "measuring filter" in l][-1].strip()
plain = open(os.path.join(out, "aos_soa_read.stderr")).read().strip().splitlines()
probe = open(os.path.join(out, "probe_terminal.typescript"), errors="replace").read()
print("\n== report GPU check ==")
print(f"{'filter 16M best':28} {run['best']['config']} {run['best']['time_s'] * 1e6:.2f} us "
      f"({run['best']['fraction_of_ceiling'] * 100:.1f}% of the {run['copy_ceiling']['gbps']:.0f} GB/s ceiling)")
print(f"{'trials in --json':28} {len(run['trials'])}")
print(f"{'progress redraws (tty)':28} {redraws}; last line: {last}")
print(f"{'progress lines (no tty)':28} {len(plain)}: " + " | ".join(plain))
print(f"{'probe progress redraws':28} {probe.count(chr(13) + chr(27) + '[K')}")
for f in ("filter_16M.html", "aos_soa_read.html", "filter_vs_model.html"):
    p = os.path.join(out, f)
    text = open(p).read()
    print(f"{f:28} {os.path.getsize(p) // 1024} KiB, {text.count('<svg class=\"plot\"')} plots, "
          f"network references: {len(re.findall(r'https?://', text))}")
PY
