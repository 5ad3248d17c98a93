#!/usr/bin/env bash
# Submits the tuning array (one task per shard) and the merge job that waits
# for all of it; prints both job ids. Settings as in tune_array.sbatch, plus
# SHARDS (default 4).
#
#   MEMTUNE=$PWD/build/cli/memtune TARGET=k20 examples/slurm/submit.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
: "${SHARDS:=4}" "${OUT:=memtune-out}"
export OUT
mkdir -p "$OUT"
array=$(sbatch --parsable --export=ALL --array="0-$((SHARDS - 1))" --output="$OUT/tune_%A_%a.out" \
  "$here/tune_array.sbatch")
merge=$(sbatch --parsable --export=ALL --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$OUT/merge_%j.out" "$here/merge.sbatch")
echo "$array $merge"
