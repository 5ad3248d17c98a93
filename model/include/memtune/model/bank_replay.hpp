#pragma once
// Replays a kernel's shared-memory instructions for every warp of a block and
// sums the wavefronts, so a template can describe its shared accesses once
// (as functions of warp and lane) and get the totals for any configuration.
//
//   SharedInstruction st{"store tile row", 4, AccessKind::store, 8,
//       [&](int warp, int lane, std::int64_t iter) { ... byte address ... }};
//   BankReplay r = replay_block({st, ld}, /*warps_per_block*/ 8, BankConfig::fixed_4byte());
//   r.total.wavefronts   // per block
#include <memtune/model/bank_sim.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memtune::model {

struct SharedInstruction {
  std::string name;  // for the rationale: "load tile column"
  int width_bytes = 4;
  AccessKind kind = AccessKind::load;
  std::int64_t iterations = 1; // times each warp executes it (loop trip count)
  // [bytes] shared address of (warp in block, lane, iteration); nullopt = lane inactive.
  std::function<std::optional<std::uint64_t>(int warp, int lane, std::int64_t iteration)> address;
  // Each replayed iteration stands for `repeat` executions: a loop whose
  // trips access alike (e.g. one per plane of a 3D sweep) is described by its
  // distinct iterations and replayed once, not once per trip.
  std::int64_t repeat = 1;
};

struct InstructionTotals {
  std::string name;
  std::int64_t executions = 0;       // warp-level executions per block (counting repeats)
  std::int64_t wavefronts = 0;       // per block
  std::int64_t ideal_wavefronts = 0; // per block
  int worst_ways = 0;                // worst single execution
  [[nodiscard]] std::int64_t conflicts() const { return wavefronts - ideal_wavefronts; }
};

struct BankReplay {
  std::vector<InstructionTotals> per_instruction;
  InstructionTotals total; // name "total"
};

// Every instruction, every warp of one block, every iteration of loops up
// to replay_iteration_cap trips; longer loops are sampled
// (iteration_sample.hpp), so the cost does not grow with the problem (a
// mat-vec tile loop over a million columns). Throws std::invalid_argument on
// a malformed access.
[[nodiscard]] BankReplay replay_block(const std::vector<SharedInstruction>& instructions, int warps_per_block,
                                      const BankConfig& config);

} // namespace memtune::model
