#!/usr/bin/env bash
# Runs memtune_search_bench and Kernel Tuner's strategies on every recording in
# bench/data/ and prints one table with both (Kernel Tuner's rows are named
# kt:*), then the issue's verdict lines (bayes against random and against KT
# bayes_opt).
#
#   bench/search/run_all.sh [build-dir] [--seeds N]
#
# Needs a built memtune_search_bench (default build dir: ./build) and a Python
# with kernel_tuner (KT_PYTHON, default /tmp/kt-venv/bin/python, else python3);
# without kernel_tuner only memtune's side is printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
[[ $# -gt 0 ]] && shift
seeds=30
if [[ "${1:-}" == "--seeds" ]]; then seeds="$2"; fi
bench="$build/bench/search/memtune_search_bench"
[[ -x "$bench" ]] || { echo "run_all.sh: $bench not built (cmake --build $build --target memtune_search_bench)" >&2; exit 1; }
python="${KT_PYTHON:-/tmp/kt-venv/bin/python}"
[[ -x "$python" ]] || python=python3

recordings=("$root"/bench/data/*.json)
kt_json="$(mktemp)"
trap 'rm -f "$kt_json"' EXIT
kt_args=()
if "$python" -c "import kernel_tuner" 2>/dev/null; then
  "$python" "$root/bench/search/kernel_tuner_compare.py" "${recordings[@]}" --seeds "$seeds" --json > "$kt_json"
  kt_args=(--kernel-tuner "$kt_json")
else
  echo "== Kernel Tuner not importable with $python: memtune only" >&2
fi
"$bench" "${recordings[@]}" --seeds "$seeds" "${kt_args[@]}"
