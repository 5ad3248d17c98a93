#pragma once
// The tuning loop on the local GPU: a strategy proposes configurations, a pool
// compiles them ahead on all cores, and each is loaded, checked against the
// device's limits, launched, verified against the reference and timed. One
// loop for every kernel description, built-in or a user's.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/compile/compile_options.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/tune/execution_options.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/tune/search_options.hpp>
#include <memtune/output/tuning_result.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

// Everything a tuning run takes, by concern: what it searches
// (search_options.hpp), where candidates run (execution_options.hpp), how they
// compile (compile_options.hpp), and what the run reports and keeps.
struct TuneOptions : SearchOptions, ExecutionOptions, CompileOptions {
  // Baselines to time after the search, in the same run (names from
  // KernelDescription::baseline_names(), e.g. "cublas"); an unknown name throws
  // std::invalid_argument before anything runs.
  std::vector<std::string> compare;
  // Called once the space is known, before the first candidate (for progress
  // output: the result holds the space, strategy and mode); may be empty.
  std::function<void(const TuningResult&)> on_start;
  // Called after each candidate (for progress output); may be empty.
  std::function<void(const Evaluation&, std::size_t done)> on_evaluation;
  // Every finished candidate appended to a journal; an unfinished run resumed (journal.hpp).
  JournalOptions journal;
};

// No GPU (or no driver) where a measurement is required.
class DeviceRequired : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Measures every proposed configuration of `kernel` for `problem` on the
// local GPU. The description's reference (reference configuration or kernel)
// runs first; without a usable reference nothing is measured and
// TuningResult::aborted says why. Throws DeviceRequired without a GPU,
// MixedDevices when options.devices are of several GPU models,
// std::invalid_argument for a bad problem or strategy, and DescriptionError
// when the description's arguments do not match the compiled kernel's
// parameters, JournalError for a journal of another run or a damaged one. A
// candidate's failure is recorded, not thrown: in a worker process (the
// default) a crash, a sticky CUDA error or a hang costs that candidate and a
// fresh worker; in this process (isolation off) a sticky error ends the run
// early, keeping what was measured (TuningResult::aborted says why).
TuningResult tune(const KernelDescription& kernel, const Problem& problem, const TuneOptions& options);

// tune() on every GPU model among options.devices, each model on its own GPUs
// (a host of mixed GPUs): one result per model, in the order of their first
// GPU; a run of one model is tune(). Each model's journal is the journal file
// with the model in its name (path_for_model), since a journal holds one GPU.
std::vector<TuningResult> tune_each_model(const KernelDescription& kernel, const Problem& problem,
                                          const TuneOptions& options);

// Predicts every proposed configuration on `target` with the analytical model
// (no GPU needed): registers from NVRTC compiling for the target's
// architecture, or the nearest one NVRTC still supports. A description
// without an access pattern gets registers, occupancy and its limiter only
// (TuningResult::time_modeled is false, candidates in grid order).
TuningResult tune_modeled(const KernelDescription& kernel, const Problem& problem, const Target& target,
                          const TuneOptions& options);

} // namespace memtune
