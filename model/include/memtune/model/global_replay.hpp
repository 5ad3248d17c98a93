#pragma once
// Replays a representative block's global-memory instructions (AccessPattern)
// the way an SM issues them, warp by warp in program order, and counts what
// reaches L2: load sectors that miss the warp's share of L1 (or of Kepler's
// read-only cache), store sectors, and the write requests L1 sends after
// combining. Loops longer than model::replay_iteration_cap are sampled
// (iteration_sample.hpp), so the cost does not grow with the problem.
#include <memtune/model/access_pattern.hpp>
#include <memtune/model/target.hpp>

#include <cstdint>

namespace memtune {

// How the target's caches treat a block's global accesses, given how many
// warps share an SM (Target fields; cache capacities are per-warp shares).
struct GlobalCaching {
  std::int64_t l1_sectors_per_warp = 0;        // standard loads; 0 = not cached in L1
  std::int64_t read_only_sectors_per_warp = 0; // __ldg loads
  int write_combining_lines = 4;               // StoreCombiner window

  // `resident_warps`: warps per SM; `smem_per_sm`: [bytes] shared memory the
  // resident blocks take from a unified L1/shared array.
  static GlobalCaching for_target(const Target& target, int resident_warps, std::size_t smem_per_sm);
};

// Per block.
struct GlobalTraffic {
  double requested = 0;      // [bytes] distinct bytes the lanes ask for
  double moved = 0;          // [bytes] sectors x 32 every instruction touches (L1 requests)
  double l2_load_bytes = 0;  // [bytes] load sectors that miss the cache and cross L2 -> SM
  // Of l2_load_bytes, those of GlobalInstruction::shared_by_blocks, and
  // the distinct bytes those instructions touch in the block (sectors x 32).
  double l2_load_bytes_shared_by_blocks = 0;
  double shared_by_blocks_footprint = 0;
  double stores_moved = 0;   // [bytes] store sectors x 32
  double write_requests = 0; // L1 -> L2 (store_combining.hpp)
  // L1 data-path wavefronts of the global instructions: one per 128-byte line
  // a request touches, at least one per 128 bytes it moves (a coalesced
  // float4 warp access is 4, an AoS field load over 3 lines is 3). They share
  // the path with shared memory's wavefronts (Nsight Compute's
  // l1tex__data_pipe_lsu_wavefronts counts both); Kepler replays an
  // instruction per line it touches in the same way.
  double l1_wavefronts = 0;
};

// Throws std::invalid_argument on a malformed access.
[[nodiscard]] GlobalTraffic replay_global(const AccessPattern& pattern, int warps_per_block,
                                          const GlobalCaching& caching);

// Sectors x 32 one instruction touches in a whole block, over its
// iterations (sampled like replay_global) and repeats: what templates add up
// for an array's L2 requests.
[[nodiscard]] double touched_bytes(const GlobalInstruction& instruction, int warps_per_block);

} // namespace memtune
