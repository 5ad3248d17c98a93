#pragma once
// Internal to isolation: the GPU side of a measured run, the same code in the
// tuning process (--no-isolation) and in a worker process. It owns the CUDA
// context, the run's workload (inputs, outputs, expected values), the Timer,
// the reference's expected outputs and the baselines; it loads a compiled
// candidate, launches it, verifies it and times it. It never compiles a
// candidate (the tuning process does, through its compile cache) and knows
// nothing of the search.
//
//   CandidateLauncher gpu(description, problem, {device, seed, measure, cache});
//   gpu.run_reference(reference);            // before any candidate (reference modes)
//   CopyCeiling c = gpu.measure_ceiling(bytes);
//   LaunchOutcome o = gpu.run(request);      // per candidate
#include <memtune/compile/compile_cache.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/measure/workload.hpp>
#include <memtune/measure/evaluation.hpp>
#include <memtune/measure/measure.hpp>
#include <memtune/output/tuning_result.hpp>

#include <cuda.h>

#include <memory>
#include <optional>
#include <optional>
#include <span>
#include <string>

namespace memtune::isolation {

// A compiled kernel to launch: a candidate, or the reference.
struct LaunchRequest {
  search::Config config;
  LaunchSpec launch;
  std::string lowered_name;
  std::span<const char> cubin;
};

// What the GPU side found out about one candidate. The tuning process merges
// it into the candidate's Evaluation (occupancy, GB/s: apply_outcome).
struct LaunchOutcome {
  Status status = Status::ok;
  std::string reason;               // for people: what happened and what it means
  KernelResources resources;        // registers, static shared memory, stack frame of the loaded function
  int driver_blocks_per_sm = -1;    // cuOccupancyMaxActiveBlocksPerMultiprocessor
  double max_abs_error = 0.0;
  std::optional<Timing> timing;     // when it ran and verified
  std::optional<EnergyMeasurement> energy; // when asked for (MeasureOptions::energy) and measured
  std::string energy_error;         // why it was asked for and not measured
  std::string cuda_error;           // "CUDA_ERROR_ILLEGAL_ADDRESS" when a CUDA call failed
  // A sticky error: this process's CUDA context is unusable from now on.
  bool context_lost = false;
  // The candidate may still be running on the GPU (a launch timed out): the
  // process must be replaced before the next candidate is timed.
  bool gpu_busy = false;
};

struct ReferenceOutcome {
  std::optional<std::string> error;   // why there is no reference (then nothing can be verified)
  std::optional<double> time_s;       // [seconds] one launch of the reference, when asked for
  bool context_lost = false;
};

struct LauncherOptions {
  int device = 0;
  std::uint64_t seed = 1;
  MeasureOptions measure;
  const CompileCache* cache = nullptr; // for the verification kernel; may be null
};

class CandidateLauncher {
public:
  // Creates the context on `device` and reads the target from the driver
  // (completed from the catalogue). Throws cuda::DriverUnavailable /
  // cuda::DriverError when the GPU cannot be used.
  CandidateLauncher(const KernelDescription& description, const Problem& problem, const LauncherOptions& options);
  ~CandidateLauncher();
  CandidateLauncher(const CandidateLauncher&) = delete;
  CandidateLauncher& operator=(const CandidateLauncher&) = delete;

  [[nodiscard]] const Target& target() const;
  // Fills and uploads the inputs and allocates the Timer's buffers; the first
  // call that needs them does it otherwise. A worker does it right after it
  // said ready, while the tuning process prepares the search. Throws
  // std::invalid_argument for a problem the description cannot fill.
  void prepare_inputs();

  // Reference modes: launches the compiled reference on a poisoned output and
  // keeps its outputs as the expected values; with `time_it`, also times one
  // more launch (the watchdog's yardstick). A compile failure is the caller's
  // to report; here a reference that fails to launch or leaves outputs unwritten.
  ReferenceOutcome run_reference(const LaunchRequest& reference, bool time_it);
  // A callback's expected values for `config`, computed now rather than in
  // the first candidate that needs them. Returns the seconds it took.
  double prepare_expected(const search::Config& config);
  // The device-to-device copy ceiling (copy_ceiling.hpp) with this run's Timer.
  CopyCeiling measure_ceiling(std::size_t bytes);
  // Loads, checks against the device's limits, launches on poisoned outputs,
  // verifies, times, and verifies the last timed launch again (a result that
  // changes between launches is wrong). Never throws for the candidate's faults.
  LaunchOutcome run(const LaunchRequest& candidate);
  // One baseline by name (KernelDescription::hooks.baselines), verified and
  // timed like a candidate; `bytes_moved` gives its GB/s.
  BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved);

private:
  struct State;
  std::unique_ptr<State> state_;
};

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered): the
// kernel read or wrote an address outside its buffers" for a CUDA error a
// candidate caused; the driver's words alone for other codes.
std::string explain_cuda_error(CUresult code);
// "CUDA_ERROR_ILLEGAL_ADDRESS"; "CUresult 700" without a driver.
std::string cuda_error_name(CUresult code);

} // namespace memtune::isolation
