#pragma once
// DRAM and L2 traffic of a whole launch, given how data is reused. Every
// sector an SM asks for crosses L2 -> SM; it crosses DRAM -> L2 once if the
// reuse fits in L2, again on every re-read if it does not.
//
//   // 1D stencil, 16M floats, 256-element tiles with a 4-element halo each side:
//   ArrayTraffic in = halo_read_1d("in", 16 << 20, 4, 256, 4, /*reuse window*/ 1 << 20);
//   Traffic t = estimate_traffic({in, out}, h100.l2_bytes);
//   t.dram_bytes ~ 2 x 64 MiB (halo re-reads hit L2); t.l2_bytes ~ 64 MiB x (1 + 8/256) + 64 MiB
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memtune::model {

struct ArrayTraffic {
  std::string name;
  double footprint_bytes = 0;    // [bytes] distinct bytes touched, rounded up to 32-byte sectors
  double requested_bytes = 0;    // [bytes] sum over warp instructions of sectors x 32 (what the SMs request)
  // [bytes] data the GPU touches between two uses of the same byte; 0 = read once.
  // Halo re-reads by neighbouring blocks: roughly the bytes in flight across all
  // resident blocks.
  double reuse_window_bytes = 0;
  bool written = false;          // stores: write-back of the footprint once
};

struct ArrayTrafficResult {
  std::string name;
  double dram_bytes = 0; // [bytes]
  double l2_bytes = 0;   // [bytes]
  bool reuse_hits_l2 = false;
};

struct Traffic {
  double dram_bytes = 0; // [bytes] whole launch
  double l2_bytes = 0;   // [bytes] whole launch
  std::vector<ArrayTrafficResult> per_array;
};

// `l2_usable_fraction` of L2 is assumed to hold reused data. Half by default:
// A100 and H100 split L2 into two partitions that may both hold a line, other
// streams compete for the space, and replacement is not ideal LRU.
[[nodiscard]] Traffic estimate_traffic(const std::vector<ArrayTraffic>& arrays, std::size_t l2_bytes,
                                       double l2_usable_fraction = 0.5);

// A 1D array of `n` elements read in tiles of `tile` elements per block, each
// block also reading `halo` elements on each side (clipped at the ends).
// Counts sectors exactly per block, assuming the array starts sector-aligned.
[[nodiscard]] ArrayTraffic halo_read_1d(std::string name, std::int64_t n, int elem_bytes, std::int64_t tile,
                                        std::int64_t halo, double reuse_window_bytes);

} // namespace memtune::model
