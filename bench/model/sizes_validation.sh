#!/usr/bin/env bash
# The model's pick against the measured best on the whole grids recorded at
# sizes off the catalogue's (bench/sizes/, gzipped), plus the catalogue's own
# (bench/data/catalogue/), without a GPU. Prints memtune_model_validation's
# rows for each folder and a summary line per folder: the mean of the pick's
# loss against the best and how many picks are more than 5 % behind.
#   h200_fit/    48 H200 grids the model's constants were chosen on (with the catalogue's 12)
#   h200_check/  18 H200 grids recorded after, to check them
#   h200_fdtd/   10 H200 whole fdtd grids (r4), the space with ky 4: the shaped 512x512x256,
#                480^3, 376^3, 200x328x160; nx % 8 == 4: 500x500x200, 300^3, 260^3; nx % 4 == 2:
#                302x300x300; odd nx: 301x300x300, 375x376x376
#   h200_fdtd_unaligned/  6 H200 ring grids (--only scheme=ring) of the ring's loops for rows not
#                16-byte aligned: nx % 4 == 2 (302x300x300, 250^3, 374x376x376) at 27b22b2 (its 8-byte row copies), odd nx
#                (301x300x300, 375x376x376, 129x130x131) at 2cba61e (its predicated row copies and stores)
#   h200_sweep_fdtd/  13 H200 whole fdtd grids (r4, ky 4 in the space, the kernels of commit 1f451c8)
#                of the fdtd sweep's sizes, 64^3 to 480x480x256 (scripts/sweep_gpu_check.sh; docs/sweep.md)
# Usage: bench/model/sizes_validation.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
validation=$build/bench/model/memtune_model_validation
[[ -x "$validation" ]] || {
  echo "sizes_validation.sh: $validation not built (cmake --build $build --target memtune_model_validation)" >&2
  exit 1
}
export MEMTUNE_TARGETS_DIR=${MEMTUNE_TARGETS_DIR:-$PWD/configs/targets}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The pick's loss is the last column ("+5.0%"); the summary reads it from there.
summarise() {
  awk -v name="$1" '$NF ~ /%$/ { v = $NF; sub(/%$/, "", v); s += v; n++; if (v + 0 > 5) over++ }
    END { if (n) printf "%s: %d recordings, mean pick loss %.2f %%, %d more than 5 %% behind\n\n", name, n, s / n, over }'
}

for folder in bench/sizes/h200_fit bench/sizes/h200_check bench/sizes/h200_fdtd bench/sizes/h200_fdtd_unaligned \
              bench/sizes/h200_sweep_fdtd; do
  name=$(basename "$folder")
  mkdir -p "$work/$name"
  for f in "$folder"/*.json.gz; do gzip -dc "$f" > "$work/$name/$(basename "${f%.gz}")"; done
  "$validation" "$work/$name"/*.json --target h200 | tee "$work/out.txt"
  summarise "$name" < "$work/out.txt"
done
{
  "$validation" bench/data/catalogue/h200_*.json --target h200
  "$validation" bench/data/catalogue/h100_*.json --target h100-sxm | tail -n +2
} | tee "$work/out.txt"
summarise "catalogue" < "$work/out.txt"
