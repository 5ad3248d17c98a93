#!/usr/bin/env bash
# compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over every
# built-in template at small odd sizes (about 3-6 minutes on an H100).
#   scripts/sanitize_templates.sh [build-dir]
# Each configuration is launched once on a poisoned output and verified, not
# timed (tests/sanitize/sanitize_runner.cpp). A template's space at a size is
# checked whole when it has at most $SAMPLE configurations (default 48), else
# a seeded sample of $SAMPLE (its default configuration always among them):
# the summary says which. SAMPLE=0 checks every space whole (slow: a module
# load under the sanitizer costs ~0.1 s, fdtd alone has 896 configurations).
# The four tools run side by side, one process each, each stopped after
# $TOOL_TIMEOUT seconds (default 600). TEMPLATES="filter fdtd" checks only
# those (default: the catalogue). ONLY="staging=direct" keeps the
# configurations with these axis values (the runner's --only, comma-separated;
# with one template). Logs under $OUT (or ./sanitize-out); a
# table per template and tool last. Exit 0 when clean.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
out=${OUT:-sanitize-out}
sample=${SAMPLE:-48}
mkdir -p "$out"

sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[ -x "$sanitizer" ] || { echo "compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin)"; exit 1; }
"$sanitizer" --version | tail -1 | tee "$out/sanitizer.txt"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build "$build" -j "$(nproc)" --target memtune_sanitize_runner >"$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
runner="$build/tests/memtune_sanitize_runner"
export MEMTUNE_CACHE_DIR="$out/compile-cache"

# Small odd sizes: partial tiles, blocks and warps everywhere. fdtd four
# times: nx=37 takes the ring's 4-byte cp.async path, nx=70 (rows 8-byte
# aligned) its 8-byte one, nx=136 (rows 16-byte aligned) its 16-byte cp.async
# and bulk-copy (copy engine, mbarrier) paths, nx=132 (rows 16 bytes off a
# multiple of 32) the bulk copies into box rows 4 floats longer (COPY 2). transpose
# twice: 37 rows shift its output segments onto sectors (and read 8 rows above
# each tile), 40 do not.
declare -A sizes=(
  [filter]="--set n=1001|--set n=1001 --set taps=3"
  [matvec]="--set rows=37 --set cols=53 --set layout=col|--set rows=53 --set cols=37 --set layout=row"
  [aos_soa]="--set n=1001 --set op=read|--set n=1001 --set op=write|--set n=1001 --set op=readwrite"
  [fdtd]="--set nx=37 --set ny=19 --set nz=11|--set nx=70 --set ny=19 --set nz=11|--set nx=136 --set ny=19 --set nz=11|--set nx=132 --set ny=20 --set nz=11"
  [transpose]="--set rows=37 --set cols=53|--set rows=40 --set cols=19"
)
templates=${TEMPLATES:-$(bash scripts/catalogue_templates.sh)}
tools="memcheck racecheck initcheck synccheck"
only_args=()
[ -n "${ONLY:-}" ] && only_args=(--only "$ONLY")
: >"$out/runs.txt"
for t in $templates; do
  if [ -z "${sizes[$t]:-}" ]; then
    echo "!! $t: no small size listed in this script: checked at its default size (add one to sizes[])" | tee -a "$out/runs.txt"
    sizes[$t]=""
  fi
  IFS='|' read -ra problems <<<"${sizes[$t]}"
  [ ${#problems[@]} -eq 0 ] && problems=("")
  i=0
  for p in "${problems[@]}"; do
    name="$t-$i"
    i=$((i + 1))
    # Without the sanitizer first: compiles into the cache, and every launch must verify.
    # shellcheck disable=SC2086
    "$runner" "$t" $p "${only_args[@]}" --sample "$sample" >"$out/$name.plain.log" 2>&1
    echo "$name plain $? $(grep '^sanitize-summary' "$out/$name.plain.log" | cut -d: -f2-)" | tee -a "$out/runs.txt"
    start=$(date +%s)
    for tool in $tools; do
      # shellcheck disable=SC2086
      timeout "${TOOL_TIMEOUT:-600}" "$sanitizer" --tool "$tool" --target-processes all --print-limit 20 \
        --log-file "$out/$name.$tool.log" "$runner" "$t" $p "${only_args[@]}" --sample "$sample" >"$out/$name.$tool.out" 2>&1 &
    done
    wait
    echo "   $name: the four tools in $(( $(date +%s) - start )) s" | tee -a "$out/runs.txt"
  done
done

python3 - "$out" "$tools" <<'PY'
import glob, os, re, sys
out, tools = sys.argv[1], sys.argv[2].split()
rows, clean = [], True
for plain in sorted(glob.glob(os.path.join(out, "*.plain.log"))):
    name = os.path.basename(plain)[: -len(".plain.log")]
    text = open(plain).read()
    m = re.search(r"^sanitize-summary (\S+) ([^:]*): (\d+) of (\d+) configurations \(([^)]*)\), ok (\d+), wrong (\d+), failed (\d+), skipped (\d+)", text, re.M)
    if not m:
        rows.append((name, "-", "runner failed: " + text.strip().splitlines()[-1][:80] if text.strip() else "runner failed", "", ""))
        clean = False
        continue
    template, problem, n, whole, how, ok, wrong, failed, skipped = m.groups()
    if int(wrong) or int(failed):
        clean = False
    cells = []
    findings = []
    for tool in tools:
        log = os.path.join(out, f"{name}.{tool}.log")
        text = open(log).read() if os.path.exists(log) else ""
        # memcheck, initcheck, synccheck: "ERROR SUMMARY: 0 errors"; racecheck:
        # "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)".
        s = re.search(r"ERROR SUMMARY: (\d+) error", text) or re.search(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error", text)
        if s is None:
            cells.append(f"{tool} ?")
            clean = False
            continue
        errors = int(s.group(1))
        cells.append(f"{tool} {errors}")
        if errors:
            clean = False
            # The first lines that say what and where: "Invalid __global__ read of size 4 bytes", "at ...kernel..."
            what = re.findall(r"^=+ +((?:Invalid|Race|Uninitialized|Barrier|Divergent|Program hit|Error)[^\n]*)\n=+ +at ([^\n]*)", text, re.M)
            for w, where in what[:3]:
                findings.append(f"    {tool}: {w.strip()} at {where.strip()[:100]}")
    only = how.split(", --only ")[1] if ", --only " in how else ""  # the runner's restriction, if any
    rows.append((f"{template} {problem}" + (f" ({only})" if only else ""), f"{n}/{whole} ({'whole' if how.startswith('the whole') else 'sample'})",
                 f"ok {ok}, wrong {wrong}, failed {failed}, skipped {skipped}", ", ".join(cells), "\n".join(findings)))

print()
print(f"{'template and size':<44} {'configs':<16} {'verified':<40} sanitizer errors")
for r in rows:
    print(f"{r[0]:<44} {r[1]:<16} {r[2]:<40} {r[3]}")
    if r[4]:
        print(r[4])
print("\nclean" if clean else "\nNOT clean: see the logs named above")
sys.exit(0 if clean else 1)
PY
