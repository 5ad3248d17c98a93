#!/usr/bin/env bash
# The catalogue benchmark: tune each template's whole grid at the sizes its
# bars are set for on the local GPU and compare the best with the copy
# ceiling measured in the same run (L2 flushed clean), matvec also with cuBLAS
# sgemv in the same run, and the small sizes with a copy of their own bytes
# (same run). Writes every run's JSON and recording into the output folder,
# then one markdown row per run with its bar (the H100's or the H200's by the
# device's name; other GPUs: no bar).
#   bench/catalogue_tuning.sh <memtune binary> <output folder> [template ...]
# Templates default to every template of templates/catalogue.cmake (a template
# the binary does not know is reported and skipped; one this script has no
# size for is reported); CATALOGUE_SMALL=0 skips the small sizes.
set -uo pipefail
memtune=${1:?memtune binary}
out=${2:?output folder}
shift 2
templates=("$@")
# Every template of templates/catalogue.cmake (the catalogue memtune is built with).
[ ${#templates[@]} -eq 0 ] && read -r -a templates <<<"$(bash "$(dirname "$0")/../scripts/catalogue_templates.sh")"
small=${CATALOGUE_SMALL:-1}
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
    filter)  run filter_16M filter --n 16M
             [ "$small" = 1 ] && run filter_1M filter --n 1M
             [ "$small" = 1 ] && run filter_1000003_t33 filter --n 1000003 --taps 33 ;;
    aos_soa) run aos_soa_read aos_soa --n 16M --op read
             run aos_soa_write aos_soa --n 16M --op write ;;
    matvec)  run matvec_col matvec --rows 8192 --cols 8192 --layout col --compare cublas
             run matvec_row matvec --rows 8192 --cols 8192 --layout row --compare cublas
             [ "$small" = 1 ] && run matvec_col_2048 matvec --rows 2048 --cols 2048 --layout col --compare cublas ;;
    fdtd)    run fdtd_512x512x256_r4 fdtd --nx 512 --ny 512 --nz 256 --radius 4
             [ "$small" = 1 ] && run fdtd_256x256x64_r4 fdtd --nx 256 --ny 256 --nz 64 --radius 4 ;;
    transpose) run transpose_4096 transpose --rows 4096 --cols 4096
               # Rows or columns off 32-byte sectors: the reads' partial sectors, the shifted output segments.
               [ "$small" = 1 ] && run transpose_4096x3001 transpose --rows 4096 --cols 3001
               [ "$small" = 1 ] && run transpose_3001x4096 transpose --rows 3001 --cols 4096 ;;
    *)       echo "== $t: no catalogue size in bench/catalogue_tuning.sh (add one)" ;;
  esac
done

python3 - "$out" "${runs[@]}" <<'PY'
import json, os, sys
out, runs = sys.argv[1], sys.argv[2:]
# The bars per GPU: (what, floor); "same" is a fraction of the same-size copy.
bars = {
    "H100": {"filter_16M": ("ceiling", 0.98), "fdtd_512x512x256_r4": ("ceiling", 0.88),
             "matvec_col": ("ceiling+cublas", (0.97, 1.05)), "aos_soa_read": ("ceiling", 0.97),
             "aos_soa_write": ("ceiling", 0.97), "matvec_row": ("cublas", 1.00)},
    "H200": {"filter_16M": ("ceiling", 0.97), "fdtd_512x512x256_r4": ("ceiling", 0.85),
             "matvec_col": ("ceiling+cublas", (0.97, 1.05)), "aos_soa_read": ("ceiling", 0.97),
             "aos_soa_write": ("ceiling", 0.97), "matvec_row": ("cublas", 1.00)},
}
small = {"filter_1M", "filter_1000003_t33", "matvec_col_2048", "fdtd_256x256x64_r4", "transpose_4096x3001",
         "transpose_3001x4096"}
print("\n| template run | configs (failed) | wall s | best | time | % of copy ceiling | % of same-size copy | vs baseline | bar |")
print("|---|---|---|---|---|---|---|---|---|")
for name in runs:
    try:
        r = json.load(open(os.path.join(out, name + ".json")))
    except Exception as e:
        print(f"| {name} | no result ({e}) | | | | | | | FAIL |"); continue
    b = r.get("best")
    if not b:
        print(f"| {name} | {r['evaluated']} | | none succeeded | | | | | FAIL |"); continue
    gpu = next((g for g in bars if g in r["device"].get("name", "")), None)
    failed = len(r.get("failures", []))
    cfg = " ".join(f"{k}={v}" for k, v in b["config"].items())
    frac = b["fraction_of_ceiling"]
    same = b.get("fraction_of_same_size_copy")
    same_text = f"{100*same:.1f}% of {r['same_size_copy']['gbps']:.0f} GB/s" if same and "same_size_copy" in r else ""
    base = [x for x in r.get("baselines", []) if x.get("time_s")]
    ratio = base[0]["time_s"] / b["time_s"] if base else None
    vs = f"{base[0]['name']} {base[0]['time_s']*1e6:.1f} us: {ratio:.3f}x" if base else ""
    verdict = ""
    if name in small:
        verdict = ("PASS" if same and same >= 0.90 else "below") + " (>= 90% of same-size copy, where it can be beaten)"
    elif gpu and name in bars[gpu]:
        kind, bar = bars[gpu][name]
        if kind == "ceiling":
            verdict = ("PASS" if frac >= bar else "FAIL") + f" (>= {100*bar:.0f}% on the {gpu})"
        elif kind == "cublas":
            verdict = ("PASS" if ratio and ratio >= bar else "FAIL") + f" (>= {bar:.2f}x cuBLAS)"
        else:
            ok = frac >= bar[0] and ratio is not None and ratio >= bar[1]
            verdict = ("PASS" if ok else "FAIL") + f" (>= {100*bar[0]:.0f}% and >= {bar[1]:.2f}x cuBLAS)"
    print(f"| {name} | {r['evaluated']} ({failed}) | {r.get('wall_seconds', 0):.1f} | {cfg} | {b['time_s']*1e6:.1f} us | "
          f"{100*frac:.1f}% of {r['copy_ceiling']['gbps']:.0f} GB/s | {same_text} | {vs} | {verdict} |")
PY
