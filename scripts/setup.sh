#!/usr/bin/env bash
# Fresh machine to running memtune: installs the missing Debian packages,
# configures, builds the memtune program first and runs the main job, then
# builds the rest (tests, benchmarks, examples).
#   scripts/setup.sh            install, build memtune, run `memtune filter --n 16M --target k20`
#                               (modeled, no GPU needed) and, with a GPU, measure; then build the rest
#   scripts/setup.sh --no-run   install and build only
#   scripts/setup.sh --kepler-nvrtc
#                               also pip-install NVRTC 11.8 (nvidia-cuda-nvrtc-cu11), the last
#                               NVRTC that compiles Kepler (sm_35: the k20 target's registers);
#                               asked for on a terminal when it is missing
# Needs the CUDA toolkit (nvcc not required: NVRTC and headers are enough).
# ccache is installed and used when the package manager has it: a second
# build of the same sources (another clone, a clean build) is then mostly hits.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MEMTUNE_BUILD_DIR:-build}
run=1
kepler=ask
for arg in "$@"; do
  case "$arg" in
    --no-run) run=0 ;;
    --kepler-nvrtc) kepler=yes ;;
    *) echo "scripts/setup.sh: unknown option $arg (--no-run, --kepler-nvrtc)" >&2; exit 2 ;;
  esac
done

packages=(cmake g++ libeigen3-dev libcli11-dev nlohmann-json3-dev doctest-dev ccache)
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

# Kepler (the k20 target): today's NVRTC cannot compile sm_35, NVRTC 11.8 can.
# memtune asks python3 where the package lies, so a plain pip install is found.
if ! python3 -c 'import nvidia.cuda_nvrtc' 2>/dev/null; then
  if [ "$kepler" = ask ] && [ -t 0 ]; then
    read -r -p "Install NVRTC 11.8 (pip install nvidia-cuda-nvrtc-cu11, ~60 MB) so k20's registers are Kepler's? [y/N] " answer
    [[ "$answer" =~ ^[Yy] ]] && kepler=yes
  fi
  if [ "$kepler" = yes ]; then
    python3 -m pip install --user nvidia-cuda-nvrtc-cu11 2>/dev/null ||
      python3 -m pip install --user --break-system-packages nvidia-cuda-nvrtc-cu11
  else
    echo "(no NVRTC 11.8: the k20 table's registers come from the nearest architecture this toolkit's NVRTC" \
         "compiles, and the table says so; scripts/setup.sh --kepler-nvrtc installs it)"
  fi
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Unity builds of the libraries: half the cold build of the first result (see CMakeLists.txt).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT=/usr/local/cuda -DMEMTUNE_UNITY_BUILD=ON "${launcher[@]}"
# The main job's program first: the first result does not wait for the tests.
cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_worker

status=0
if [ $run -eq 1 ]; then
  echo
  echo "\$ memtune filter --n 16M --target k20"
  "$build/cli/memtune" filter --n 16M --target k20
  echo
  echo "\$ memtune filter --n 16M"
  "$build/cli/memtune" filter --n 16M || status=$?
  if [ $status -eq 3 ]; then
    echo "(no GPU on this machine: memtune is built, and measuring needs an NVIDIA GPU)"
    status=0
  fi
  echo
fi
echo "building the rest (tests, benchmarks, examples)"
cmake --build "$build" -j "$(nproc)"
exit $status
