#pragma once
// How candidates are compiled: the compile cache, the compile threads, and
// the NVRTC for architectures the linked one cannot compile (Kepler).
#include <filesystem>
#include <optional>

namespace memtune {

struct CompileOptions {
  std::optional<std::filesystem::path> cache_folder; // default: CompileCache::default_folder()
  bool use_cache = true;
  unsigned compile_threads = 0;    // 0: all hardware threads
  // Modeled runs for an architecture the linked NVRTC cannot compile (Kepler,
  // sm_35/sm_37): an NVRTC 11.8 library or its folder to compile with
  // (nvrtc_library.hpp); unset: $MEMTUNE_NVRTC_KEPLER, else one found in a
  // Python site-packages (pip install nvidia-cuda-nvrtc-cu11), else the
  // nearest architecture the linked NVRTC supports, and the result says so.
  std::optional<std::filesystem::path> nvrtc_kepler;
};

} // namespace memtune
