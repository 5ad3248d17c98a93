#!/usr/bin/env bash
# The catalogue benchmark (issue 4's bars): tune each template's whole grid at
# the issue's size on the local GPU and compare the best with the copy ceiling
# measured in the same run, and matvec with cuBLAS sgemv in the same run.
# Writes every run's JSON and recording into the output folder, prints the
# runs' tables, then one markdown row per bar.
#   bench/catalogue_tuning.sh <memtune binary> <output folder> [template ...]
# Templates default to: aos_soa matvec fdtd (those the binary knows).
set -uo pipefail
memtune=${1:?memtune binary}
out=${2:?output folder}
shift 2
templates=("$@")
[ ${#templates[@]} -eq 0 ] && templates=(aos_soa matvec fdtd)
mkdir -p "$out"

runs=()
run() { # name, then memtune arguments
  local name=$1
  shift
  "$memtune" "$@" -q --json --top 1000 --record "$out/${name}_record.json" >"$out/$name.json" 2>"$out/$name.err"
  echo "== $name: exit $? ($*)"
  runs+=("$name")
}
for t in "${templates[@]}"; do
  if ! "$memtune" "$t" --help >/dev/null 2>&1; then echo "== $t: not in this build"; continue; fi
  case $t in
    aos_soa) run aos_soa_read aos_soa --n 16M --op read
             run aos_soa_write aos_soa --n 16M --op write ;;
    matvec)  run matvec_col matvec --rows 8192 --cols 8192 --layout col --compare cublas
             run matvec_row matvec --rows 8192 --cols 8192 --layout row --compare cublas ;;
    fdtd)    run fdtd_512x512x256_r4 fdtd --nx 512 --ny 512 --nz 256 --radius 4 ;;
  esac
done

python3 - "$out" "${runs[@]}" <<'PY'
import json, os, sys
out, runs = sys.argv[1], sys.argv[2:]
bars = {"aos_soa_read": ("ceiling", 0.97), "aos_soa_write": ("ceiling", 0.97),
        "matvec_col": ("cublas", 1.00), "matvec_row": ("cublas", 1.00), "fdtd_512x512x256_r4": ("ceiling", 0.75)}
print("\n| template run | configs (failed) | best | time | % of copy ceiling (same run) | vs baseline | bar |")
print("|---|---|---|---|---|---|---|")
for name in runs:
    try:
        r = json.load(open(os.path.join(out, name + ".json")))
    except Exception as e:
        print(f"| {name} | no result ({e}) | | | | | FAIL |"); continue
    b = r.get("best")
    if not b:
        print(f"| {name} | {r['evaluated']} | none succeeded | | | | FAIL |"); continue
    failed = len(r.get("failures", []))
    cfg = " ".join(f"{k}={v}" for k, v in b["config"].items())
    frac = b["fraction_of_ceiling"]
    vs, verdict = "", ""
    kind, bar = bars.get(name, ("ceiling", 0))
    base = [x for x in r.get("baselines", []) if x.get("time_s")]
    if base:
        ratio = base[0]["time_s"] / b["time_s"]
        vs = f"{base[0]['name']} {base[0]['time_s']*1e6:.1f} us: {ratio:.2f}x"
    if kind == "cublas":
        verdict = ("PASS" if base and ratio >= bar else "FAIL") + f" (>= {bar:.2f}x cuBLAS)"
    else:
        verdict = ("PASS" if frac >= bar else "FAIL") + f" (>= {100*bar:.0f}%)"
    print(f"| {name} | {r['evaluated']} ({failed}) | {cfg} | {b['time_s']*1e6:.1f} us | "
          f"{100*frac:.1f}% of {r['copy_ceiling']['gbps']:.0f} GB/s | {vs} | {verdict} |")
PY
