#!/bin/bash
# Runs tensor_copy_alignment.cu at box starts on and off 16-byte boundaries,
# inside the tensor and past either end, one process each (docs/results.md,
# "What holds the H200 below its filter and fdtd bars", the rows that are
# not 16-byte aligned). From the repository root, on an sm_90 GPU machine:
#   bash bench/experiments/tensor_copy_alignment.sh [build folder, default a temporary one]
set -uo pipefail
work=${1:-$(mktemp -d)}
mkdir -p "$work"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -O2 -std=c++17 -arch=sm_90 -I. -o "$work/tensor_copy_alignment" bench/experiments/tensor_copy_alignment.cu -lcuda || exit 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for x in 0 4 8 1 2 3 5 6 7 -4 -3 -2 -1 960 961 962; do "$work/tensor_copy_alignment" "$x"; done
