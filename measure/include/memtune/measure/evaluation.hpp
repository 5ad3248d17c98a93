#pragma once
// The outcome of one candidate: every candidate ends with a status and, when
// it failed, the reason. A failure is data, never a crash.
#include <memtune/compile/compile_request.hpp>
#include <memtune/measure/measure.hpp>
#include <memtune/model/occupancy.hpp>
#include <memtune/model/time_model.hpp>
#include <memtune/search/config.hpp>

#include <optional>
#include <string>

namespace memtune {

enum class Status { ok, compile_failed, exceeds_device_limits, launch_failed, wrong_result, timeout };

const char* to_string(Status status);
Status status_from_string(const std::string& text); // throws std::invalid_argument

// What the analytical model saw in one candidate (per launch unless noted).
struct ModelBreakdown {
  int compiled_for_cc = 0;            // the architecture registers came from (nearest NVRTC supports)
  std::int64_t smem_wavefronts = 0;   // all blocks
  std::int64_t smem_ideal_wavefronts = 0;
  int worst_conflict_ways = 1;        // worst single shared instruction (1 = conflict-free)
  std::string worst_conflict_instruction;
  double global_bytes_requested = 0;  // [bytes] distinct bytes per warp instruction, all blocks
  double global_bytes_moved = 0;      // [bytes] sectors x 32, all blocks
  double dram_bytes = 0;              // [bytes]
  double l2_bytes = 0;                // [bytes] sectors between L2 and the SMs, all blocks (the L2 bound's)
  double local_wavefronts = 0;        // register spills' local-memory accesses, all blocks (0: no spills)
  int overlap_units_per_sm = 0;       // blocks (barrier between load and compute) or warps an SM holds:
                                      // the occupancy's, or fewer when the grid cannot fill every SM
  model::TimePrediction time;
  [[nodiscard]] double sector_efficiency() const {
    return global_bytes_moved > 0 ? global_bytes_requested / global_bytes_moved : 1.0;
  }
};

struct Evaluation {
  search::Config config;
  Status status = Status::ok;
  std::string reason;            // why it failed (compiler errors, limit exceeded, max error, ...)

  KernelResources resources;     // from ptxas, when it compiled
  double compile_seconds = 0.0;  // [seconds]; 0 for a cache hit
  bool compile_cached = false;
  std::string compiler;          // the back end that compiled it: "NVRTC 13.0", "nvcc 13.0 (/usr/local/cuda/bin/nvcc)"
  std::string compile_warnings;  // the compiler's warnings, kept (shown for the best)
  std::size_t dynamic_smem_bytes = 0;
  int block_threads = 0;
  // Blocks the launch has (0: not known, a journal of an older memtune): a
  // grid of fewer than the GPU's block slots leaves SMs idle, whatever the
  // occupancy calculator allows one SM.
  std::uint64_t grid_blocks = 0;
  model::Occupancy occupancy;     // cuda_occupancy.h with the target's limits: count and limiter
  int driver_blocks_per_sm = -1;  // cuOccupancyMaxActiveBlocksPerMultiprocessor, when measured

  double max_abs_error = 0.0;    // against the CPU reference
  std::optional<Timing> timing;  // when it ran and verified
  // Joules per launch (energy.hpp), when energy was asked for and measured;
  // energy_error says why not when it was asked for and failed.
  std::optional<EnergyMeasurement> energy;
  std::string energy_error;
  double gbps = 0.0;             // [GB/s] template's minimum bytes / median time
  double fraction_of_ceiling = 0.0; // gbps / copy ceiling of the same run
  double fraction_of_same_size_copy = 0.0; // gbps / a same-size copy of the same run (0: not measured)

  double fraction_of_peak = 0.0;     // gbps / the target's theoretical DRAM bandwidth

  // The GPU ordinal it ran on (runs on several GPUs, TuneOptions::devices);
  // -1 when it did not reach a GPU (modeled, failed to compile, ...).
  int device = -1;

  std::optional<ModelBreakdown> model; // the analytical model's facts, when predicted

  [[nodiscard]] bool ok() const { return status == Status::ok; }
};

} // namespace memtune
