#pragma once
// Coalescing of one warp-level global-memory instruction: which 32-byte
// sectors and 128-byte lines it touches, and how much of what moves was asked
// for. Since Maxwell the L1/L2 move data in 32-byte sectors of 128-byte lines
// (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory").
//
//   GlobalAccess g = analyze_global(WarpAccess::strided(0, 4, 4));   // coalesced floats
//   g.sectors == 4; g.lines == 1; g.efficiency == 1.0
//   analyze_global(WarpAccess::strided(4, 4, 4)).sectors == 5        // offset by one word
#include <memtune/model/warp_access.hpp>

#include <cstdint>

namespace memtune::model {

inline constexpr std::uint64_t sector_bytes = 32;
inline constexpr std::uint64_t line_bytes = 128;

struct GlobalAccess {
  int sectors = 0;                   // distinct 32-byte sectors touched
  int lines = 0;                     // distinct 128-byte lines touched
  std::uint64_t bytes_requested = 0; // [bytes] active lanes x width (what ncu calls requested)
  std::uint64_t unique_bytes = 0;    // [bytes] distinct bytes (lanes reading the same data count once)
  std::uint64_t bytes_moved = 0;     // [bytes] sectors x 32
  // unique_bytes / bytes_moved in [0, 1]: a broadcast is not waste, so unique
  // bytes are used rather than requested ones (which can exceed what moved).
  double efficiency = 0;
};

// Throws std::invalid_argument on a malformed access (see check_warp_access).
[[nodiscard]] GlobalAccess analyze_global(const WarpAccess& access);

} // namespace memtune::model
