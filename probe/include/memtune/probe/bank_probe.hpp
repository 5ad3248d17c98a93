#pragma once
// The shared-memory bank probe's variants and the exact shared addresses its
// kernels touch (probe/device/probes.cu, probe_bank_body), replayed
// through the model's bank simulator so a measured run can be compared with
// the simulation and with Nsight Compute's conflict counters.
//
//   const BankVariant& v = find_bank_variant("f32-stride32");
//   BankSimulation s = simulate_bank_variant(v, /*reps*/ 1024);
//   s.load_conflicts == 31 * 1024 * 8     // per block: 31 extra wavefronts a warp load, 8 warps
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/target.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memtune::probe {

// Kernel geometry, as in probes.cu.
inline constexpr int bank_block_threads = 256; // a 16 x 16 block: 8 warps
inline constexpr int bank_block_warps = bank_block_threads / 32;
inline constexpr int bank_tile_elems = 1088;   // elements staged per block (> 31 * 33 + 7)

struct BankVariant {
  std::string name;   // "f32-stride32": selectable as --only bank:f32-stride32
  std::string kernel; // "probe_bank_f32_stride32": the extern "C" kernel name
  int width_bytes = 4; // 4 (float) or 8 (double)
  int stride = 1;      // elements between the lanes of a warp: 1, 2, 16, 32 or 33 (= padded 32 x 33 tile)
  std::string what;    // "column of a 32 x 32 tile"
};

// Every variant: widths {4, 8} x strides {1, 2, 16, 32, 33}, in that order.
const std::vector<BankVariant>& bank_variants();
// By name ("f32-stride32"); nullptr when unknown.
const BankVariant* find_bank_variant(std::string_view name);

// [bytes] Shared address read in the timed loop (and written by the final
// store) by `lane` of `warp`: element lane * stride + warp.
std::uint64_t bank_loop_address(const BankVariant& v, int warp, int lane);
// [bytes] Shared address stored by the staging loop in its `iteration`
// (element iteration * 256 + warp * 32 + lane); nullopt where the lane is
// past the tile (the last iteration is partial).
std::optional<std::uint64_t> bank_fill_address(const BankVariant& v, int warp, int lane, int iteration);
// Staging loop trip count: ceil(bank_tile_elems / bank_block_threads) = 5.
inline constexpr int bank_fill_iterations = (bank_tile_elems + bank_block_threads - 1) / bank_block_threads;

// The model's prediction for one block (NVIDIA's cc >= 5 rules, 4-byte banks).
struct BankSimulation {
  std::int64_t load_wavefronts = 0;   // per block
  std::int64_t load_conflicts = 0;    // per block: what ncu's ..._op_ld.sum counts
  std::int64_t store_wavefronts = 0;  // per block (staging + final store)
  std::int64_t store_conflicts = 0;   // per block: what ncu's ..._op_st.sum counts
  int load_ways = 0;                  // worst rows per bank of the timed load
};
BankSimulation simulate_bank_variant(const BankVariant& v, std::int64_t reps,
                                     const model::BankConfig& config = model::BankConfig::fixed_4byte());

// [s] The model's time for one launch of `blocks` blocks: every wavefront the
// simulation counts (timed loads, staging and final stores) takes one cycle of
// an SM's shared-memory pipe, the blocks spread evenly over the SMs at the
// target's boost clock. Global staging and launch overhead are left out.
double predict_bank_time(const BankVariant& v, std::int64_t reps, std::int64_t blocks, const Target& target);

} // namespace memtune::probe
