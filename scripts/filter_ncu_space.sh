#!/usr/bin/env bash
# The model's shared-memory bank conflicts against Nsight Compute's hardware
# counters for EVERY configuration of the filter space, not a chosen few.
#
# One measured grid run (`memtune filter --n 2^20 --json`) under ncu, which
# profiles every launch of the filter kernel: the verification launch, the
# warm-ups and every timed sample. Each configuration is therefore counted
# several times, which shows whether the hardware counter is a property of the
# addresses (the same on every launch) or of the run (it varies: warps that
# arbitrate for the banks in the same cycle). The simulated count comes from a
# modeled run of the same space (`--target $TARGET`, default h100-sxm; a
# measured run models only the candidates it explains), as
# model.smem_wavefronts - model.smem_ideal_wavefronts.
#
# ncu names each kernel "void filter_kernel<BLOCK, PACK, ITEMS, VEC, ALIGN>(...)":
# the five template arguments are the five axes. Besides the conflicts, every
# launch's conflict-free part (wavefronts - conflicts) is checked against the
# simulated ideal wavefronts.
# Usage: scripts/filter_ncu_space.sh [BUILD_DIR] [OUT_DIR]
#        ANALYSE_ONLY=1 ... re-reads OUT_DIR/hw.csv and run.json (no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-filter-ncu-space}
ncu=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
n=1048576
mkdir -p "$out"
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
if [[ -z ${ANALYSE_ONLY:-} ]]; then
"$ncu" --clock-control none --kernel-name-base demangled --kernel-name "regex:filter_kernel<" \
  --metrics "$metrics" --print-units base --csv --log-file "$out/hw.csv" \
  "$build/cli/memtune" filter --n $n --json --top 1000 -q > "$out/run.json"
fi
# --predict: the target's catalogue entry is modeled even on that GPU (memtune
# otherwise measures the catalogue entry of the GPU it runs on).
"$build/cli/memtune" filter --n $n --target "${TARGET:-h100-sxm}" --predict --json --top 1000 -q \
  > "$out/model.json"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import collections, csv, json, os, re, sys
folder = sys.argv[1]
measured = json.load(open(os.path.join(folder, "run.json")))
modeled = json.load(open(os.path.join(folder, "model.json")))
axes = ("block_size", "packing", "items", "vec", "align")
sim = {}
for e in modeled["ranked"]:
    key = tuple(int(e["config"][a]) for a in axes)
    m = e["model"]
    sim[key] = (round(m["smem_wavefronts"]), round(m["smem_wavefronts"] - m["smem_ideal_wavefronts"]))

# One launch = the rows of one "ID" in ncu's CSV.
launches = collections.defaultdict(dict)
rows = [l for l in open(os.path.join(folder, "hw.csv"), errors="replace") if l.startswith('"')]
for r in csv.DictReader(rows):
    name = r["Kernel Name"]
    if "filter_kernel" not in name: continue
    args = re.search(r"filter_kernel<([^>]*)>", name)  # demangled, else mangled (ILi256ELi1E...)
    key = tuple(int(x) for x in (re.findall(r"-?\d+", args.group(1)) if args else re.findall(r"Li(-?\d+)E", name)))
    launches[(key, r["ID"])][r["Metric Name"]] = int(float(r["Metric Value"].replace(",", "")))
per_config = collections.defaultdict(list)
for (key, _), v in launches.items():
    conflicts = sum(x for k, x in v.items() if "bank_conflicts" in k)
    wavefronts = sum(x for k, x in v.items() if "wavefronts" in k)
    per_config[key].append((conflicts, wavefronts))

every = some = never = ideal_equal = 0
extras = []
lines = []
for key in sorted(sim):
    sim_w, sim_c = sim[key]
    hw = per_config.get(key, [])
    if not hw:
        lines.append(f"{key}: no ncu launch"); continue
    c = [h[0] for h in hw]
    equal = sum(x == sim_c for x in c)
    ideal_equal += all(w - x == sim_w - sim_c for x, w in hw)
    every += equal == len(c); some += 0 < equal < len(c); never += equal == 0
    extras.append(min(c) - sim_c)
    lines.append(f"{str(dict(zip(axes, key))):<70} sim {sim_c:>7}  hw {min(c):>7}..{max(c):<7} "
                 f"over {len(c):>3} launches, equal on {equal}")
print("\n".join(lines))
print(f"\nfilter configurations: {len(sim)} modeled, {len(measured['ranked'])} measured, {len(per_config)} profiled; "
      f"hardware conflicts = simulated on every launch: {every}, on some launches: {some}, on none: {never}; "
      f"conflict-free wavefronts = simulated on every launch: {ideal_equal}")
if extras:
    extras.sort()
    print(f"hardware minus simulated (fewest per configuration): min {extras[0]}, median {extras[len(extras) // 2]}, "
          f"max {extras[-1]}; below zero: {sum(e < 0 for e in extras)}")
PY
