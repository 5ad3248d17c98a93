#!/usr/bin/env bash
# Fresh machine to running memtune: installs the missing Debian packages,
# configures and builds, then runs the main job.
#   scripts/setup.sh            install, build, run `memtune filter --n 16M --target k20`
#                               (modeled, no GPU needed), then measure on the local GPU if any
#   scripts/setup.sh --no-run   install and build only
# Needs the CUDA toolkit (nvcc not required: NVRTC and headers are enough).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_BUILD_DIR:-build}

packages=(cmake g++ libeigen3-dev libcli11-dev nlohmann-json3-dev doctest-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -e /usr/local/cuda/include/nvrtc.h ] && ! command -v nvcc >/dev/null; then
  echo "memtune needs the CUDA toolkit (headers and NVRTC), e.g. in /usr/local/cuda" >&2
  exit 1
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda
cmake --build "$build" -j "$(nproc)"

[ "${1:-}" = "--no-run" ] && exit 0
echo
echo "\$ memtune filter --n 16M --target k20"
"$build/cli/memtune" filter --n 16M --target k20
echo
echo "\$ memtune filter --n 16M"
status=0
"$build/cli/memtune" filter --n 16M || status=$?
if [ $status -eq 3 ]; then
  echo "(no GPU on this machine: memtune is built, and measuring needs an NVIDIA GPU)"
  exit 0
fi
exit $status
