#!/usr/bin/env bash
# Every `memtune` command line of the README, run as written from a scratch
# folder that sees the repository's bench/, examples/ and configs/: each must
# exit 0, or 3 where it measures (no GPU is visible here: CUDA_VISIBLE_DEVICES
# is emptied so that a GPU machine runs this as quickly as CI). A line whose
# input file is a placeholder (kernel.json, app.memtune.json, ...) is skipped
# and counted; a line with a shell pipe is skipped. Fails on the first line
# that does anything else, naming it; fails too if fewer than MIN lines ran.
#   tests/readme/readme_commands.sh SOURCE_DIR BUILD_DIR [MIN]
set -uo pipefail
src=$(cd "${1:?source dir}" && pwd)
build=$(cd "${2:?build dir}" && pwd)
min=${3:-12}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in bench examples configs; do ln -s "$src/$d" "$work/$d"; done
export PATH="$build/cli:$build/bench/search:$build/bench/model:$PATH"
export CUDA_VISIBLE_DEVICES=""
export MEMTUNE_CACHE_DIR="$work/cache"

ran=0 skipped=0
while IFS= read -r line; do
  command=${line%%  #*}                     # the README's comments start after two spaces
  command=$(echo "$command" | sed 's/[[:space:]]*$//')
  case $command in *"|"*) skipped=$((skipped + 1)); continue ;; esac
  case $command in *"("*) continue ;; esac # a line of output shown ("memtune filter n=... on NVIDIA H100 (sm_90 ...")
  # Inputs: the .json/.journal/.cu words not written by this line (after -o, --save, ...).
  placeholder=""
  read -r -a words <<<"$command"
  for ((i = 1; i < ${#words[@]}; ++i)); do
    w=${words[i]}
    prev=${words[i - 1]}
    case $prev in -o | --save | --record | --report | --journal | ">") continue ;; esac
    case $w in
      *.json | *.journal | *.cu) compgen -G "$work/$w" >/dev/null || placeholder=$w ;;
    esac
  done
  if [[ -n $placeholder ]]; then
    skipped=$((skipped + 1))
    continue
  fi
  (cd "$work" && timeout 300 bash -c "$command" >"$work/out.txt" 2>"$work/err.txt")
  rc=$?
  if [[ $rc -eq 0 ]] || { [[ $rc -eq 3 ]] && grep -qi "gpu\|device" "$work/err.txt"; }; then
    ran=$((ran + 1))
    echo "ok (exit $rc): $command"
  else
    echo "README line failed (exit $rc): $command"
    tail -5 "$work/err.txt"
    exit 1
  fi
done < <(awk '/^```(sh|bash)?$/{f=!f; next} f' "$src/README.md" | grep -E '^(memtune|memtune_search_bench|memtune_model_validation) ')
echo "$ran README lines ran, $skipped skipped (a placeholder input or a pipe)"
[[ $ran -ge $min ]] || { echo "fewer than $min README lines ran: the README's examples changed shape?"; exit 1; }
