#!/usr/bin/env bash
# Time against energy on this GPU: each built-in template at its catalogue size
# (the sizes of bench/catalogue_tuning.sh's large runs) tuned with
# --objective energy, every candidate's time and joules per launch measured in
# the same run; a table of the time-best and the energy-best configuration,
# their times and joules per launch with the batches' spread, and whether the
# energy-best is told apart from the time-best.
#   scripts/energy_gpu_check.sh MEMTUNE OUT [TEMPLATE ...]
# Environment: ENERGY_BUDGET candidates per run (default 24, bayes on the
# energy objective); ENERGY_PREVIOUS, a folder of an earlier call's JSON
# (its OUT): the table then adds that call's joules and the change between
# the two calls (run it twice, in separate calls, for the repeatability).
set -uo pipefail
memtune=${1:?memtune binary}
out=${2:?output folder}
shift 2
templates=("$@")
# Every template of templates/catalogue.cmake (the catalogue memtune is built with).
[ ${#templates[@]} -eq 0 ] && read -r -a templates <<<"$(bash "$(dirname "$0")/catalogue_templates.sh")"
budget=${ENERGY_BUDGET:-24}
mkdir -p "$out"

runs=()
run() { # name, then memtune arguments
  local name=$1
  shift
  "$memtune" "$@" --objective energy --strategy bayes --budget "$budget" -q --json --top 1000 \
    >"$out/$name.json" 2>"$out/$name.err"
  echo "== $name: exit $? ($* --objective energy --strategy bayes --budget $budget)"
  runs+=("$name")
}
for t in "${templates[@]}"; do
  if ! "$memtune" "$t" --help >/dev/null 2>&1; then echo "== $t: not in this build"; continue; fi
  case $t in
    filter)  run filter_16M filter --n 16M ;;
    aos_soa) run aos_soa_read aos_soa --n 16M --op read
             run aos_soa_write aos_soa --n 16M --op write ;;
    matvec)  run matvec_col matvec --rows 8192 --cols 8192 --layout col
             run matvec_row matvec --rows 8192 --cols 8192 --layout row ;;
    fdtd)    run fdtd_512x512x256_r4 fdtd --nx 512 --ny 512 --nz 256 --radius 4 ;;
    transpose) run transpose_4096 transpose --rows 4096 --cols 4096 ;;
    *)       echo "== $t: no size in scripts/energy_gpu_check.sh (add one)" ;;
  esac
done

python3 - "$out" "${ENERGY_PREVIOUS:-}" "${runs[@]}" <<'PY'
import json, os, sys
out, previous, runs = sys.argv[1], sys.argv[2], sys.argv[3:]

def load(folder, name):
    try:
        with open(os.path.join(folder, name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def text(config):
    return ",".join(f"{k}={v}" for k, v in config.items())

def energy(t):
    return f"{1e3*t['joules_per_launch']:.4g} mJ (+-{100*t['energy_spread']:.1f}%, {t['mean_watts']:.0f} W)"

def picks(doc):
    trials = [t for t in doc.get("trials", []) if t.get("status") == "ok" and "joules_per_launch" in t]
    if not trials:
        return None, None
    return min(trials, key=lambda t: t["time_s"]), min(trials, key=lambda t: t["joules_per_launch"])

method = None
print("\n| run | measured | time-best | time | energy | energy-best | time | energy | energy-best vs time-best | told apart |"
      + (" previous call: time-best / energy-best mJ | change |" if previous else ""))
print("|---|---|---|---|---|---|---|---|---|---|" + ("---|---|" if previous else ""))
for name in runs:
    doc = load(out, name)
    if doc is None:
        print(f"| {name} | no JSON (see {name}.err) |")
        continue
    method = method or doc.get("energy_method")
    fast, frugal = picks(doc)
    if not fast:
        print(f"| {name} | no energy measured: {doc.get('objective_refused', '')} |")
        continue
    n = sum(1 for t in doc["trials"] if "joules_per_launch" in t)
    dt = frugal["time_s"] / fast["time_s"] - 1
    de = frugal["joules_per_launch"] / fast["joules_per_launch"] - 1
    apart = "same configuration" if frugal is fast else (
        "yes" if frugal["energy_max_j"] < fast["energy_min_j"] else "no (ranges overlap)")
    refused = doc.get("objective_refused")
    if refused:
        apart += "; objective refused"
    row = (f"| {name} | {n} | {text(fast['config'])} | {1e6*fast['time_s']:.2f} us | {energy(fast)} | "
           f"{text(frugal['config'])} | {1e6*frugal['time_s']:.2f} us | {energy(frugal)} | "
           f"{100*dt:+.1f}% time, {100*de:+.1f}% J | {apart} |")
    if previous:
        old = load(previous, name)
        ofast, ofrugal = picks(old) if old else (None, None)
        if ofast:
            change = (frugal["joules_per_launch"] / ofrugal["joules_per_launch"] - 1) if text(ofrugal["config"]) == text(frugal["config"]) else None
            row += (f" {1e3*ofast['joules_per_launch']:.4g} / {1e3*ofrugal['joules_per_launch']:.4g} "
                    f"({text(ofrugal['config'])}) | "
                    + (f"{100*change:+.1f}% J, same energy-best |" if change is not None else "another energy-best |"))
        else:
            row += " not in the previous call | |"
    print(row)
if method:
    print(f"\nenergy: NVML {method['source']}, step {1e3*method['resolution_j']:.4g} mJ every "
          f"{1e3*method['period_s']:.1f} ms (measured), {method['repeats']} batches per candidate "
          f"(first: {method['launches_per_batch_first']} launches, {method['batch_seconds_first']:.3g} s), "
          f"idle {method['idle_watts_first']:.0f} W subtracted outside the batches")
PY
