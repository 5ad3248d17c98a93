#!/usr/bin/env bash
# One device call's worth of work: the GPU check (tests, example, filter
# benchmark), the probes with the ncu bank-conflict comparison, whole-space
# aos_soa runs, and the model validation on the fresh filter recording.
# Everything lands in $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-session-out}
mkdir -p "$out"
bash scripts/gpu_check.sh build-gpu >"$out/gpu_check.txt" 2>&1
check=$?
OUT="$out/probe" bash scripts/probe_validation.sh build-gpu "$out/probe" >"$out/probe_validation.txt" 2>&1
for op in read write; do
  build-gpu/cli/memtune aos_soa --n 16M --op $op -q --record "$out/aos_soa_${op}_record.json" \
    >"$out/aos_soa_${op}.txt" 2>&1
done
build-gpu/bench/model/memtune_model_validation "$out/filter_16M_record.json" "$out"/aos_soa_*_record.json \
  >"$out/model_validation.txt" 2>&1
echo "== probes"; tail -30 "$out/probe_validation.txt"
for op in read write; do echo "== aos_soa $op"; head -20 "$out/aos_soa_${op}.txt"; done
echo "== model validation"; cat "$out/model_validation.txt"
echo "== GPU check"; tail -40 "$out/gpu_check.txt"
exit $check
