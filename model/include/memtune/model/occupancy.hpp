#pragma once
// Theoretical occupancy of a kernel on a Target, computed by NVIDIA's
// cuda_occupancy.h (header-only, no GPU needed) fed with the target's limits.
//
//   Occupancy o = compute_occupancy(h100, {.block_threads = 256, .regs_per_thread = 64});
//   o.blocks_per_sm == 4; o.describe() ==
//     "32 warps/SM of 64 (50%), 4 blocks/SM, limited by registers (4 blocks × 16384 registers of 65536)"
//
// The driver's default shared-memory carve-out is assumed: the largest one
// (cuda_occupancy.h's CACHE_PREFER_NONE / SHAREDMEM_CARVEOUT_DEFAULT).
// cuda_occupancy.h supports cc 3.0 to 12.x, so Kepler targets (sm_35, sm_37)
// work even though CUDA 13 can no longer compile for them.
#include <memtune/model/target.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace memtune::model {

// What one kernel launch asks of an SM.
struct KernelResources {
  int block_threads = 0;        // threads per block
  int regs_per_thread = 0;      // as reported by the compiler (NVRTC / cuFuncGetAttribute)
  std::size_t static_smem = 0;  // [bytes] __shared__ arrays
  std::size_t dynamic_smem = 0; // [bytes] the launch's dynamic shared memory
};

// Why occupancy stops where it does. The words are what a rationale prints.
enum class Limiter { threads_warps, registers, shared_memory, blocks_per_sm, barriers };
[[nodiscard]] const char* to_string(Limiter l); // "threads/warps", "registers", "shared memory", "blocks per SM", "barriers"

struct Occupancy {
  int blocks_per_sm = 0;    // resident blocks per SM; 0 = the kernel cannot launch
  int warps_per_block = 0;  // ceil(block_threads / 32)
  int warps_per_sm = 0;     // blocks_per_sm * warps_per_block
  int max_warps_per_sm = 0; // the target's limit
  double fraction = 0;      // warps_per_sm / max_warps_per_sm, in [0, 1]

  // Blocks per SM each resource alone would allow; -1 = that resource sets no
  // limit (no registers or no shared memory used).
  int limit_threads_warps = 0;
  int limit_registers = 0;
  int limit_shared_memory = 0;
  int limit_blocks_per_sm = 0;
  std::vector<Limiter> limiters; // every resource whose limit equals blocks_per_sm

  int regs_per_block = 0;          // registers allocated per block (per-warp granularity of 256)
  std::size_t smem_per_block = 0;  // [bytes] allocated per block: static + dynamic + driver reserve, rounded up
  std::size_t smem_per_sm = 0;     // [bytes] the carve-out assumed for the count
  int regs_per_sm = 0;             // the target's register file per SM
  std::string cannot_launch;       // why blocks_per_sm is 0; empty otherwise

  // "16 warps/SM of 64 (25%), 2 blocks/SM, limited by shared memory (2 blocks × 24 KiB of 48 KiB)"
  [[nodiscard]] std::string describe() const;
};

// Throws std::invalid_argument when the resources are malformed (block_threads
// <= 0, negative registers) or the target's compute capability is unknown to
// cuda_occupancy.h. A kernel that fits no block on an SM is not an error: it
// returns blocks_per_sm == 0 with cannot_launch saying why.
[[nodiscard]] Occupancy compute_occupancy(const Target& target, const KernelResources& kernel);

} // namespace memtune::model
