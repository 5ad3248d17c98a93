#!/usr/bin/env bash
# What one worker process's driver start costs, alone and with the other
# GPUs' workers starting at the same moment (as --devices starts them), with
# every GPU visible to each process or only its own (CUDA_VISIBLE_DEVICES).
# Each process prints cuInit's seconds and its context's (with a first
# allocation); two rounds, the first after a cold start of the machine.
#   bench/devices/driver_start.sh          (needs g++ and the CUDA headers)
set -u
cd "$(dirname "$0")"
exe=$(mktemp /tmp/driver_start.XXXXXX)
g++ -O1 -I/usr/local/cuda/include driver_start.cpp -o "$exe" -L/usr/local/cuda/lib64/stubs -lcuda || exit 2
n=$(nvidia-smi -L | grep -c '^GPU ')
for round in 1 2; do
  echo "== round $round: one process, every GPU visible"
  "$exe" 0
  echo "== one process, its own GPU only"
  CUDA_VISIBLE_DEVICES=0 "$exe" 0
  echo "== $n processes at once, every GPU visible"
  start=$(date +%s%N)
  for d in $(seq 0 $((n - 1))); do "$exe" "$d" & done
  wait
  echo "   all ready after $(( ($(date +%s%N) - start) / 1000000 )) ms"
  echo "== $n processes at once, each seeing its own GPU only"
  start=$(date +%s%N)
  for d in $(seq 0 $((n - 1))); do CUDA_VISIBLE_DEVICES=$d "$exe" 0 & done
  wait
  echo "   all ready after $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
rm -f "$exe"
