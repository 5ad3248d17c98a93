#pragma once
// Predicted kernel time on a Target: the largest of its throughput bounds,
// with DRAM bandwidth itself capped by Little's law so that occupancy and
// loads in flight matter, and raised where bounds meet (imperfect overlap,
// the knee); docs/model.md gives the formulas and sources.
//
//   KernelFacts f{.dram_bytes = 2 * 64e6, .warp_instructions = 4e6, .warps_per_sm = 32,
//                 .loads_in_flight_per_thread = 1, .bytes_per_load = 4};
//   TimePrediction p = predict_time(k20, f);
//   p.binding == Bound::dram; p.describe() == "... DRAM-bound: 128 MB at 144 GB/s ..."
#include <memtune/model/target.hpp>

#include <string>
#include <vector>

namespace memtune::model {

// Per-launch facts about a candidate, produced by the other model parts.
struct KernelFacts {
  double dram_bytes = 0;              // [bytes] DRAM <-> L2 traffic (traffic.hpp)
  double l2_bytes = 0;                // [bytes] L2 <-> SM traffic (sectors x 32)
  // Of l2_bytes, the stores' sectors, and the write requests L1 sends for
  // them (store_combining.hpp). When requests > 0 the L2 bound prices the
  // stores per request instead of per sector.
  double l2_store_bytes = 0;          // [bytes]
  double l2_write_requests = 0;
  double smem_wavefronts = 0;         // shared-memory wavefronts over all blocks (bank_replay.hpp)
  double warp_instructions = 0;       // warp-level instructions issued, all warps (approximate)
  double fp32_instructions = 0;       // of warp_instructions, those on the FP32 pipe (0 = not counted)
  // Warps per SM that run at once, averaged over the SMs: the occupancy's
  // resident warps (occupancy.hpp), or fewer when the grid cannot fill every
  // SM (blocks x warps per block / SMs).
  double warps_per_sm = 0;
  double loads_in_flight_per_thread = 1; // independent global loads a thread has outstanding at once
  double bytes_per_load = 4;          // [bytes] per thread per load (4 float, 8 float2, 16 float4)
  // For the block-pipeline bound (0 blocks: not modelled). A block that loads,
  // synchronises, computes and stores holds its SM slot for a memory round
  // trip plus its own instructions; blocks_per_sm of them run at once.
  double blocks = 0;                  // in the launch
  int blocks_per_sm = 0;              // resident (occupancy.hpp); a grid of fewer blocks than S x this runs in one wave
  double warps_per_block = 0;         // 0: warps_per_sm / blocks_per_sm
  double memory_round_trips_per_block = 1; // dependent global-memory waits in a block's life
  double instructions_per_warp = 0;   // warp instructions one warp issues in its life
  // Independent units per SM whose memory and compute phases are serial
  // within each unit but overlap across units: resident blocks when a barrier
  // separates loads from compute (a block of fewer warps than the SM's
  // schedulers counts as warps / schedulers of one), else resident warps; a
  // grid that cannot fill every SM holds ceil(blocks / SMs) blocks on a
  // working SM, not the occupancy's (model_evaluator.cpp). 0 = perfect overlap.
  int overlap_units_per_sm = 0;
  // Hopper's bulk copies (cp.async.bulk) in the launch and their bytes (0: none).
  double bulk_copies = 0;
  double bulk_copy_bytes = 0;
  // Blocks a working SM runs at once: the occupancy's, or ceil(blocks / SMs)
  // when the grid cannot fill it (0: blocks_per_sm).
  int blocks_held_per_sm = 0;
};

struct TimeModelParams {
  // Fraction of peak DRAM bandwidth a streaming copy reaches: refresh, bus
  // turnarounds and ECC keep it below 1 (typical copy ceilings: 0.75-0.92 of
  // peak). Replace with the measured copy ceiling on a local GPU.
  double dram_efficiency = 0.85;
  // Shared-memory wavefronts each SM serves per clock: one (128 B on cc >= 5,
  // 256 B on Kepler).
  double smem_wavefronts_per_clock = 1.0;
  // [ns] one SM takes to receive one more block from the block scheduler, used
  // when the target has no measured block_launch_ns (memtune probe). 80 ns is
  // the H100's: its filter recording and the launch probe show ~0.61 ns per
  // block GPU-wide (132 SMs) once a launch has more than ~10^5 small blocks.
  // Other GPUs: an assumption, the same per-SM rate.
  double block_launch_ns_per_sm = 80.0;
  // L2 time of one write request (a 128-byte line, any number of its bytes
  // written), in 128-byte reads at the L2 read bandwidth (128 B / 7066 GB/s
  // = 18.1 ps on the H100). 2.1 is the median over five H100 configurations
  // measured with Nsight Compute (docs/results.md): (time - the loads'
  // L2 time) / the write requests ncu counted = 40.8 and 42.3 ps (filter items
  // 8, float2 and float stores), 35.9, 29.0 and 38.5 ps (AoS vector stores,
  // items 8, 4, 2): 2.25, 2.34, 1.98, 1.60, 2.13 reads. Other GPUs: an
  // assumption, the same ratio.
  double l2_write_request_reads = 2.1;
  // Fraction of a target's theoretical L2 bandwidth (bytes per clock x clock,
  // configs/targets) that all SMs reading an L2-resident buffer reach:
  // memtune's L2 read probe measured 6865 GB/s on an H100 SXM5 whose L2 is
  // 5120 B/clk x 1980 MHz = 10138 GB/s. A target with a measured L2 read
  // bandwidth (Target::measured, memtune probe) uses that figure instead.
  double l2_efficiency = 6865.0 / 10138.0;
  // How much a dependent load's latency grows in a memory system kept busy:
  // latency x (1 + gain x DRAM utilisation). Queueing makes the loaded
  // latency a multiple of the unloaded one; 1 (twice the latency at full
  // bandwidth) is what the H100 recordings show for the kernels bound by
  // their dependent round trips: the column-major mat-vec with 128 blocks
  // on 132 SMs (4 round trips of 16 B per thread per batch: 120.6 us
  // measured, 59 us with the unloaded 450 ns, 118 us with twice it) and the
  // fdtd sweep (one block of 16 warps per SM marching 256 planes).
  double loaded_latency_gain = 1.0;
  // Issued instructions per instruction the templates count. Their counts
  // (access_pattern.hpp) take the memory accesses, the arithmetic and a few
  // instructions of indexing each; the compiled code also computes 64-bit
  // addresses, predicates and loop control. Nsight Compute counted 1.4-1.6x
  // the filter's estimate on seven H100 configurations
  // (docs/results.md, "Where the filter's time goes"): 1.5.
  double instruction_overhead = 1.5;
  // The block pipeline counts whole waves (a part-filled last wave takes a
  // block's life: the fdtd at 376^3 measured 3 waves' time for 2.18). Off,
  // a fraction of a wave costs that fraction of a life: more blocks per SM
  // then never predict a longer time, which a lower bound needs (bounded_grid.hpp).
  bool whole_waves = true;
  // Hopper's copy engine (the TMA unit, one per SM) serves the bulk copies
  // its blocks issue one at a time: a fixed cost per copy plus its bytes,
  // and a block that waits for its copies at a barrier leaves the engine
  // idle meanwhile unless another block feeds it: the time is
  // (copies x cycles + bytes / rate) x (1 + 1 / blocks held per SM).
  // Fitted to the floor of the fdtd ring's whole grids with bulk row copies
  // (time x clock / copies per SM, the least over a space's configurations of
  // one tile width and occupancy; H200, 23 sizes from 64^3 to 600x600x100,
  // and the H100 at 512x512x256): 27-31 cycles a 288-byte row and 37-41 a
  // 544-byte row with two blocks per SM, 38-41 and 47-53 with one;
  // 12 cycles + 39 B/cycle gives 29, 39, 39 and 52.
  double bulk_copy_cycles_per_request = 12.0;
  double bulk_copy_bytes_per_cycle = 39.0;
  // Where two of the memory time (DRAM or L2), the block pipeline and the
  // block launch come close, neither is the whole story: warps waiting out a
  // round trip leave the DRAM queue short now and then, and blocks waiting to
  // be launched leave it idle at the start. A closed queueing network's
  // throughput bends below both of its asymptotes near where they cross;
  // the time is at least the p-norm (sum t^p)^(1/p) of the three, which is
  // the max far from the crossing and 2^(1/p) x either at it. p = 8 fitted
  // on 60 whole-grid recordings (H100, H200; docs/model.md, *p*). 0: the max.
  double knee_exponent = 8.0;
};

enum class Bound { dram, l2, shared_memory, issue, block_pipeline, block_launch, copy_engine };
// "DRAM", "L2", "shared memory", "issue", "block pipeline", "block launch", "copy engine"
[[nodiscard]] const char* to_string(Bound b);

struct BoundTime {
  Bound bound = Bound::dram;
  double seconds = 0;    // [s] time this resource alone needs
  bool modelled = true;  // false when the target lacks the figure (L2 bandwidth neither published nor measured)
  std::string detail;    // "128 MB at 144 GB/s (latency-limited: 18 KiB in flight/SM x 13 SMs / 450 ns)"
};

struct TimePrediction {
  double seconds = 0;            // [s] max over the modelled bounds, raised where they meet (exposed, knee)
  Bound binding = Bound::dram;   // the bound that sets `seconds`
  std::vector<BoundTime> bounds; // every Bound, in enum order
  double peak_dram_gbs = 0;              // [GB/s] the target's theoretical peak
  double bandwidth_ceiling_gbs = 0;      // [GB/s] peak x dram_efficiency
  double latency_bound_gbs = 0;          // [GB/s] bytes in flight / latency (Little's law)
  double achievable_dram_gbs = 0;        // [GB/s] min of the two above
  double bytes_in_flight_per_sm = 0;     // [bytes]
  // [s] the smaller of the memory and SM-side (shared memory, issue) times
  // that resident blocks fail to hide: min / overlap_units_per_sm (0 when not modelled)
  double exposed_seconds = 0;
  [[nodiscard]] bool latency_limited() const { return latency_bound_gbs < bandwidth_ceiling_gbs; }
  [[nodiscard]] const BoundTime& bound(Bound b) const { return bounds[static_cast<std::size_t>(b)]; }
  // The memory side: the larger of the DRAM and (where modelled) L2 times,
  // which the overlap term and the knee each count once.
  [[nodiscard]] double memory_seconds() const;
  // The largest modelled bound after the binding one (nullptr with fewer than
  // two): the headroom the max of the bounds hides. Where configurations tie
  // on the binding bound, the one whose runner-up is furthest below it is the
  // least exposed to imperfect overlap (TuningResult::ranking). Not the copy
  // engine: its bound already charges the overlap it lacks (1 + 1 / blocks).
  [[nodiscard]] const BoundTime* runner_up() const;
  // One line a CUDA engineer can check: the binding bound with its numbers.
  [[nodiscard]] std::string describe() const;
};

// Throws std::invalid_argument on negative facts, warps_per_sm <= 0 while
// there is DRAM traffic, or a target lacking clocks, SMs, bandwidth or latency.
[[nodiscard]] TimePrediction predict_time(const Target& target, const KernelFacts& facts,
                                          const TimeModelParams& params = {});

} // namespace memtune::model
