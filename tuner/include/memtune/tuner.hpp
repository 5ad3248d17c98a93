#pragma once
// The tuning loop on the local GPU: a strategy proposes configurations, a pool
// compiles them ahead on all cores, and each is loaded, checked against the
// device's limits, launched, verified against the reference and timed. One
// loop for every kernel description, built-in or a user's.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/device_list.hpp>
#include <memtune/isolation/isolation_options.hpp>
#include <memtune/journal.hpp>
#include <memtune/measure.hpp>
#include <memtune/objective.hpp>
#include <memtune/search/shard.hpp>
#include <memtune/tuning_result.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

struct TransferSource; // transfer.hpp

struct TuneOptions {
  std::string strategy = "grid";   // "grid" | "random" | "bayes" (search::make_strategy)
  // Measured runs with "bayes": the analytical model's prediction (no
  // compile, model_prior.hpp) is the search's prior mean, for descriptions
  // with a model (an access pattern). False: plain bayes.
  bool model_prior = true;
  std::size_t budget = 0;          // max candidates evaluated; 0 = no limit
  double time_budget_s = 0.0;      // [seconds] stop after this much wall time; 0 = no limit
  std::size_t patience = 0;        // stop after this many evaluations without a new best; 0 = never
  std::uint64_t seed = 1;          // data and strategy randomness
  int device = 0;                  // CUDA device ordinal
  // Measured runs on several GPUs of this host (device_list.hpp): one worker
  // process per GPU, each candidate measured on whichever is idle, and bayes
  // proposing batches of as many candidates as there are GPUs. The GPUs must
  // be of one model (else MixedDevices; tune_each_model tunes each model
  // apart). Unset: `device` alone.
  std::optional<DeviceList> devices;
  MeasureOptions measure;
  // What the search minimises (objective.hpp): energy and edp measure each
  // candidate's joules per launch (measure.energy is then enabled) and need
  // a GPU whose energy NVML reports; without one tune() throws
  // EnergyUnavailable before anything runs.
  Objective objective = Objective::time;
  std::optional<std::filesystem::path> cache_folder; // default: CompileCache::default_folder()
  bool use_cache = true;
  unsigned compile_threads = 0;    // 0: all hardware threads
  // Modeled grid runs: compile (for registers) only the candidates that can
  // still reach the top `exact_top` by the model's lower bound; the others
  // are counted, not predicted. 0: compile and predict every candidate (what
  // a recording needs).
  std::size_t exact_top = 10;
  // Axes fixed to one value each ({"block_size", "256"}, labels allowed for
  // categorical axes): the search runs on the rest, e.g. to measure exactly
  // one configuration under Nsight Compute. Unknown axes or values are
  // std::invalid_argument.
  std::map<std::string, std::string> only;
  // Run only this part of the space (search/shard.hpp): N jobs with shards
  // 1/N .. N/N tune disjoint parts that together are the whole space.
  // shard_source says where it came from, for the result's header.
  std::optional<search::Shard> shard;
  std::string shard_source;
  // Baselines to time after the search, in the same run (names from
  // KernelDescription::baseline_names(), e.g. "cublas"); an unknown name throws
  // std::invalid_argument before anything runs.
  std::vector<std::string> compare;
  // Modeled runs for an architecture the linked NVRTC cannot compile (Kepler,
  // sm_35/sm_37): an NVRTC 11.8 library or its folder to compile with
  // (nvrtc_library.hpp); unset: $MEMTUNE_NVRTC_KEPLER, else one found in a
  // Python site-packages (pip install nvidia-cuda-nvrtc-cu11), else the
  // nearest architecture the linked NVRTC supports, and the result says so.
  std::optional<std::filesystem::path> nvrtc_kepler;
  // Modeled runs: predict the target from this measured recording or profile
  // store of another GPU, each configuration's time scaled by the model's
  // ratio between the two GPUs (transfer.hpp). Measured bayes runs: the same
  // transferred prediction for the local GPU is the search's prior mean.
  std::optional<std::filesystem::path> transfer_from;
  // Bayes runs, measured or modeled: the search's prior mean is this run of
  // another problem size carried to this one, each configuration's time
  // scaled by the model's ratio between the two sizes (transfer_prior with
  // TransferSource::problem set; sweep_source makes one from a result). How
  // `memtune sweep` starts each size from the sizes done before. Takes the
  // place of the model prior; not with transfer_from.
  std::shared_ptr<const TransferSource> warm_start;
  // Called once the space is known, before the first candidate (for progress
  // output: the result holds the space, strategy and mode); may be empty.
  std::function<void(const TuningResult&)> on_start;
  // Called after each candidate (for progress output); may be empty.
  std::function<void(const Evaluation&, std::size_t done)> on_evaluation;
  // Measured runs: candidates launch in a supervised worker process, with a
  // watchdog (isolation_options.hpp).
  IsolationOptions isolation;
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
