#!/usr/bin/env bash
# Runs memtune_search_bench and Kernel Tuner's strategies on every recording in
# bench/data/ and on a generated hard space, and prints one table with both
# (Kernel Tuner's rows are named kt:*), then the verdict lines (bayes and
# bayes+model against random and against KT bayes_opt), then the batch table:
# bayes and bayes+model as 1, 2, 4 and 8 parallel workers, evaluations to 5%
# (bar: batch 4 <= 1.5x batch 1), then the cost of a bayes step, memtune's and
# Kernel Tuner's.
#
#   bench/search/run_all.sh [build-dir] [--seeds N]
#
# Needs a built memtune_search_bench (default build dir: ./build) and a Python
# with kernel_tuner (KT_PYTHON, default /tmp/kt-venv/bin/python, else python3);
# without kernel_tuner only memtune's side is printed. Only recordings are
# passed on (a JSON object with "space" and "trials"); other JSON in
# bench/data (targets/h100_probed_target.json is a target profile) is skipped.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build"
seeds=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    *) build="$1"; shift ;;
  esac
done
bench="$build/bench/search/memtune_search_bench"
[[ -x "$bench" ]] || { echo "run_all.sh: $bench not built (cmake --build $build --target memtune_search_bench)" >&2; exit 1; }
python="${KT_PYTHON:-/tmp/kt-venv/bin/python}"
[[ -x "$python" ]] || python=python3

generated="$(mktemp -d)"
trap 'rm -rf "$generated"' EXIT

recordings=() small=() large=()
# Every recording under bench/data, its subfolders included (catalogue/, spec/, ...).
# A large one is kept gzipped (the 10^5 user-kernel space: 25 MB of JSON):
# unpacked here under its own name.
while IFS= read -r f; do
  if [[ "$f" == *.json.gz ]]; then
    unpacked="$generated/$(basename "${f%.gz}")"
    gzip -dc "$f" > "$unpacked"
    f="$unpacked"
  fi
  if trials=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ok = isinstance(d, dict) and "space" in d and "trials" in d
print(len(d["trials"]) if ok else 0)
sys.exit(0 if ok else 1)' "$f"); then
    recordings+=("$f")
    if [[ $trials -gt 20000 ]]; then large+=("$f"); else small+=("$f"); fi
  else
    echo "== skipping $f: not a recording" >&2
  fi
done < <(find "$root/bench/data" -name '*.json' -o -name '*.json.gz' | sort)
[[ ${#recordings[@]} -gt 0 ]] || { echo "run_all.sh: no recordings in $root/bench/data" >&2; exit 1; }

# The hard case: a made-up space of 6912 configurations of which 8 lie
# within 5 % of the best (bench/data/make_hard_space.py, deterministic),
# written here rather than kept (1 MB).
python3 "$root/bench/data/make_hard_space.py" "$generated/synthetic_hard_space.json" >&2
recordings+=("$generated/synthetic_hard_space.json")
small+=("$generated/synthetic_hard_space.json")

# The example kernels' descriptions: their recordings (spec/) get bayes+model
# from their model sections, as `memtune tune --spec` runs them.
spec_args=()
for f in "$root"/examples/kernels/*/*.json; do spec_args+=(--spec "$f"); done

kt_json="$generated/kernel_tuner.json"
kt_args=()
if "$python" -c "import kernel_tuner" 2>/dev/null; then
  # At most 1000 evaluations a run: past a few hundred, bayes_opt's steps on
  # the hard space take seconds each; every other recording's metrics are
  # taken well before (20 % of 1400 configurations is 280). On a space of
  # 10^5 (more than 20000 configurations) at most 500: each of bayes_opt's
  # steps scores the whole space, about 50 s a run of 500.
  "$python" "$root/bench/search/kernel_tuner_compare.py" "${small[@]}" --seeds "$seeds" --max-fevals 1000 \
    --json > "$generated/kt_small.json"
  cp "$generated/kt_small.json" "$kt_json"
  if [[ ${#large[@]} -gt 0 ]]; then
    "$python" "$root/bench/search/kernel_tuner_compare.py" "${large[@]}" --seeds "$seeds" --max-fevals 500 \
      --json > "$generated/kt_large.json"
    python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a["results"] += b["results"]
json.dump(a, open(sys.argv[3], "w"), indent=2)' "$generated/kt_small.json" "$generated/kt_large.json" "$kt_json"
  fi
  kt_args=(--kernel-tuner "$kt_json")
else
  echo "== Kernel Tuner not importable with $python: memtune only" >&2
fi
"$bench" "${recordings[@]}" --seeds "$seeds" "${spec_args[@]}" "${kt_args[@]}"
"$bench" "${recordings[@]}" --seeds "$seeds" "${spec_args[@]}" --batch-sizes 1,2,4,8 --batch-table-only

# The cost of a bayes step, memtune's and Kernel Tuner's in the same run, on
# the catalogue's fdtd grids (1232 and 1568 configurations). memtune adds the recorded
# spaces of more than 20000 configurations and its synthetic 10^5 space, the
# only ones 2000 observations fit; Kernel Tuner would list them whole. Both on one core: BLAS threads would count Kernel
# Tuner's CPU on several.
step_recordings=("$root"/bench/data/catalogue/h100_fdtd_512x512x256_r4.json
                 "$root"/bench/data/catalogue/h200_fdtd_512x512x256_r4.json)
"$bench" "${step_recordings[@]}" "${large[@]}" --step-cost 50,100,200,500,2000
if [[ ${#kt_args[@]} -gt 0 ]]; then
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
    "$python" "$root/bench/search/kernel_tuner_compare.py" "${step_recordings[@]}" --step-cost 50,100,200,500 --seeds 3
fi
