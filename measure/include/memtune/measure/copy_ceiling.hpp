#pragma once
// The copy ceiling: a device-to-device copy timed with the same protocol as
// the candidates (same L2 flushing, same statistics) in the same process, so
// "% of ceiling" is a ratio of two numbers from one run.
#include <memtune/measure/measure.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

namespace memtune {

struct CopyCeiling {
  double gbps = 0.0;       // [GB/s] bytes read + written / median time
  std::size_t bytes = 0;   // [bytes] copied per sample
  Timing timing;
  std::string l2_flush;    // "clean" or "dirty" (l2_flush.hpp); empty: warm
};

// Copies `bytes` (at least twice the L2, so the copy streams from DRAM) and
// counts bytes read plus bytes written.
CopyCeiling measure_copy_ceiling(Timer& timer, std::size_t bytes);

// What a run copies: the ceiling, max(bytes_moved / 2, 2x L2) so that the copy
// streams from DRAM, and, when the problem is smaller than that, its own size
// (same_size_bytes; 0 when the ceiling is that copy already).
struct CopySizes {
  std::size_t ceiling_bytes = 0;
  std::size_t same_size_bytes = 0;
};
[[nodiscard]] CopySizes copy_sizes(std::uint64_t bytes_moved, std::size_t l2_bytes);

} // namespace memtune
