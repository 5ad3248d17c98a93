#pragma once
// What the analytical model needs to know about one configuration of a
// template: its warp-level memory accesses (for one representative block),
// the whole launch's traffic per array, and how much independent work each
// thread keeps in flight. Templates describe their kernel once, as functions
// of (warp, lane, iteration); the model replays them for any target.
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/traffic.hpp>
#include <memtune/model/warp_access.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

// Which cache a global load goes through on its way from L2. Whether that
// cache holds anything depends on the target (Target::l1_caches_global_loads,
// Target::read_only_cache_bytes): the same description fits every GPU.
enum class GlobalPath {
  standard,  // ld.global (ld.ca): L1 where the GPU caches global loads in L1, else L2 only
  read_only, // __ldg (ld.global.nc): the read-only data cache (Kepler) or the unified L1/texture cache
  l2_only,   // __ldcg (ld.global.cg): never cached in L1
};

// One global-memory instruction of a representative block.
struct GlobalInstruction {
  std::string name;                     // "load input tile"
  int width_bytes = 4;                  // 1, 2, 4, 8 or 16
  model::AccessKind kind = model::AccessKind::load;
  std::int64_t iterations = 1;          // times each warp executes it
  // [bytes] global address for (warp in block, lane, iteration); nullopt = lane inactive.
  std::function<std::optional<std::uint64_t>(int warp, int lane, std::int64_t iteration)> address;
  // Each replayed iteration stands for `repeat` executions (see
  // model::SharedInstruction::repeat): a loop whose trips access alike.
  std::int64_t repeat = 1;
  GlobalPath path = GlobalPath::standard; // loads only
  // Loads only: 0, each block reads its own addresses; n >= 1, the grid's
  // blocks read n sets of addresses, every block one of them whole (a
  // mat-vec's x: each row tile multiplies by its split's slice, n = splits).
  // L1 is the SM's, not the warp's or the block's: while the n sets fit
  // beside the loads in flight, the SM's later blocks and warps find them
  // there and only its first read of each set crosses L2 (model_evaluator.cpp).
  std::int64_t shared_by_blocks = 0;
};

struct AccessPattern {
  int block_threads = 0;
  std::int64_t blocks = 0;                          // in the launch
  // The launch's global-memory traffic in representative blocks (0: blocks).
  // Fewer where the grid overhangs the problem: an edge block moves only the
  // part of its tile inside it, while it still issues its whole tile's shared
  // loads and arithmetic (an fdtd tile 128 columns wide on a 132-column
  // volume: 2 blocks, 132/128 blocks' worth of traffic).
  double global_traffic_blocks = 0;
  std::vector<model::SharedInstruction> shared;     // per block
  std::vector<GlobalInstruction> global;            // per block (a block away from the edges)
  std::vector<model::ArrayTraffic> arrays;          // whole launch: footprints and requests per array
  // When set, replaces `arrays`: traffic whose reuse in L2 depends on how many
  // blocks run at once over the whole GPU (resident_blocks = SMs x blocks per
  // SM, at most the grid), which only occupancy, so the compiled registers,
  // decides. The fdtd's z-chunks re-read their neighbour's planes a lifetime
  // apart that grows with |one z-slice / resident blocks - 1|.
  std::function<std::vector<model::ArrayTraffic>(double resident_blocks)> arrays_by_residency;
  // Hopper's bulk copies (cp.async.bulk) one block issues in its life, and
  // their bytes: the SM's copy engine serves them one at a time (time_model.hpp).
  double bulk_copies_per_block = 0;
  double bulk_copy_bytes_per_block = 0;
  double loads_in_flight_per_thread = 1;            // independent global loads outstanding at once
  double bytes_per_load = 4;                        // [bytes] per thread and load
  double warp_instructions_per_block = 0;           // issued, approximately
  double memory_round_trips_per_block = 1;          // dependent global-memory waits in a block's life
  // Trips of the kernel's main loop per thread (planes of a sweep, batches
  // of a reduction; 1 without a loop): register spills are taken to move once
  // per trip.
  double main_loop_trips_per_thread = 1;
  // Program order of the stores for L1 write combining: false, each store
  // instruction runs all its iterations before the next (a loop per
  // instruction); true, iteration by iteration across the store
  // instructions (one loop whose body stores every field).
  bool stores_iteration_major = false;
  // The same for the loads: true when one loop's body issues every load
  // instruction of an iteration before the next (a struct's fields), which is
  // what lets a cache serve the later fields from the first one's sectors.
  bool loads_iteration_major = false;
  // Of warp_instructions_per_block, those that run on the FP32 pipe (FADD,
  // FMUL, FFMA): Kepler has 192 FP32 lanes per SM for 8 dispatch slots, GA100
  // 64 for 4, so a shader-heavy kernel can be bound by this pipe rather than by issue.
  double fp32_instructions_per_block = 0;
  int bank_width_bytes = 4;                         // the shared-memory bank mode this config runs in
  // True when a __syncthreads separates the block's global loads from its
  // compute: then a whole block, not a warp, is the unit whose memory and
  // compute phases run one after the other (time_model.hpp, overlap).
  bool barrier_between_load_and_compute = false;
};

} // namespace memtune
