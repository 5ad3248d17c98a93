#pragma once
// Everything one tuning run produced: the result model that the table and
// JSON printers, the profile store and the rationale read from.
#include <memtune/measure/copy_ceiling.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/measure/evaluation.hpp>
#include <memtune/measure/objective.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/output/setup_times.hpp>
#include <memtune/search/space.hpp>

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune {


// A baseline timed in the same run (TuneOptions::compare), e.g. cuBLAS sgemv.
struct BaselineResult {
  std::string name;            // as asked for: "cublas"
  std::string description;     // "cuBLAS sgemv"
  bool available = false;      // false: message says why it did not run
  bool verified = false;       // its output matched the reference
  std::string message;         // why unavailable, or what went wrong (wrong result, launch error)
  std::optional<Timing> timing; // when it ran and verified: same protocol as the candidates
  double gbps = 0.0;           // [GB/s] the template's bytes_moved / median time
  double max_abs_error = 0.0;  // against the CPU reference
};

struct TuningResult {
  std::string template_name;       // the kernel description's name ("filter", or a user's kernel)
  std::string kernel_fingerprint;  // KernelDescription::fingerprint(): what exactly was tuned
  Problem problem;
  std::vector<ProblemParameter> problem_parameters; // the description's, for labels ("layout=col")
  DeviceFingerprint device;
  std::string target_name;     // "local" when measured
  bool measured = true;        // false: predicted by the model
  // Modeled runs of a kernel without an access pattern (a user's kernel): the
  // candidates are compiled for registers and their occupancy and limiter
  // computed, but no time is predicted (evaluations have no timing; nothing
  // is ranked), unless --from transfers another GPU's measured times
  // (transfer_by_bandwidth).
  bool time_modeled = true;
  int compiled_for_cc = 0;     // architecture the candidates were compiled for (modeled: nearest NVRTC supports)
  std::string compiler;        // what compiled them and so produced the registers: "NVRTC 13.0", "NVRTC 11.8 (/path)"
  std::string compiler_note;   // why compiled_for_cc is not the target's architecture ("" when it is)
  // A transferred prediction (TuneOptions::transfer_from): the measured
  // source it was scaled from ("h100_filter_16M.json: NVIDIA H100 80GB HBM3,
  // 288 configurations measured"); empty otherwise.
  std::string transferred_from;
  // How its times were scaled: "each scaled by the model's ratio between the
  // two GPUs for that configuration", or for a kernel without an access
  // pattern one ratio for all (transfer_by_bandwidth).
  std::string transfer_scaling;
  double peak_dram_gbs = 0;    // [GB/s] the target's theoretical DRAM bandwidth
  // Where the model's figures the driver does not report came from, when the
  // target catalogue has no entry for this GPU (Target::figures_note); empty
  // when it has.
  std::string model_figures;
  std::string strategy;
  // Measured bayes runs: what the search used as its prior mean, "analytical
  // model" or "none (...why...)"; empty for other strategies.
  std::string search_prior;
  search::Space space;
  std::vector<Evaluation> evaluations; // in evaluation order
  std::optional<CopyCeiling> ceiling;
  // A copy of the kernel's own bytes (bytes_moved / 2 read, as many written),
  // timed the same way: whether the kernel or the size is the limit. Only
  // when it differs from the ceiling's copy (a problem smaller than 2x L2).
  std::optional<CopyCeiling> same_size_copy;
  std::uint64_t bytes_moved = 0;       // per launch, the template's minimum
  double wall_seconds = 0.0;           // [seconds] whole run
  // Measured runs: where the set-up before the candidates went (setup_times.hpp).
  std::optional<SetupTimes> setup_times;
  int compile_cache_hits = 0;
  std::size_t configs_pruned = 0;      // removed by constraints before compiling
  // With TuneOptions::shard: which part of the space this run covered and
  // where the shard came from ("shard 2/4 (--shard 2/4): 70 of the 288 valid
  // configurations"); empty for the whole space.
  std::string shard;
  // Modeled grid runs: candidates not compiled because even with no register
  // limit the model puts them behind the top TuneOptions::exact_top.
  std::size_t configs_not_compiled = 0;
  std::size_t exact_top = 0;           // the k of that bound (0: every candidate was compiled)
  bool bound_violated = false;         // the model undercut its own bound, so every candidate was compiled
  std::string stop_reason;             // why the search stopped before the space was exhausted ("" if it was not)
  std::string aborted;                 // non-empty when the run stopped early on an error, and why
  std::vector<BaselineResult> baselines; // TuneOptions::compare, in that order
  // Measured runs: where candidates were launched, "worker process
  // (memtune-worker)" or "off: <why>" (isolation_options.hpp), and how many
  // workers replaced one that a candidate crashed, hung or left unusable.
  std::string isolation;
  std::size_t worker_restarts = 0;
  // Measured runs: the GPU ordinals candidates ran on, one worker each
  // (TuneOptions::devices); one ordinal on a single GPU.
  std::vector<int> devices;
  // With a journal: "journal FILE" or "resumed N candidates from the journal FILE".
  std::string journal;
  std::size_t resumed = 0;             // candidates answered from the journal, not evaluated again
  // What the run minimised (objective.hpp), and, when it needs energy and the
  // measurements could not carry it, why it was refused: then the ranking is
  // by time and the CLI exits with an error.
  Objective objective = Objective::time;
  std::string objective_refused;
  // Whether the candidates' energy was measured (MeasureOptions::energy).
  bool energy_measured = false;

  // The objective the ranking uses: `objective`, or time when it was refused.
  [[nodiscard]] Objective ranked_by() const { return objective_refused.empty() ? objective : Objective::time; }

  // Indices into evaluations of the ok candidates, best first by ranked_by()
  // (those lacking its value last, fastest first); among equal times, the
  // lowest model runner-up bound first (TimePrediction::runner_up).
  [[nodiscard]] std::vector<std::size_t> ranking() const;
  [[nodiscard]] const Evaluation* best() const;
  // The fastest ok candidate, whatever the objective.
  [[nodiscard]] const Evaluation* fastest() const;
  // Count per failure status.
  [[nodiscard]] std::vector<std::pair<Status, int>> failure_counts() const;
};

// A shard that holds no valid configuration of the space (searched to the
// end, nothing evaluated, no error): a valid, empty result, not a failure.
[[nodiscard]] bool empty_shard(const TuningResult& result);
// The constraints left no configuration of the whole space for this problem
// (an odd size that no tile divides): nothing was compiled or run.
[[nodiscard]] bool nothing_valid(const TuningResult& result);

// The rationale for the best configuration: what it achieved, what limits it,
// and why it beats the runner-up. Empty when nothing succeeded.
std::string rationale(const TuningResult& result);

// Each measured candidate's fractions of the copy ceiling and of the
// same-size copy, after the search (on several GPUs candidates end before
// the first GPU has measured the copies).
void add_copy_fractions(TuningResult& result);
// One line of facts for any successful candidate: warps/SM and their limiter,
// bank-conflict ways, sector efficiency, GB/s against peak (and ceiling).
std::string describe_candidate(const TuningResult& result, const Evaluation& e);

// "cuBLAS sgemv: 52.1 us (2581 GB/s); best/cublas = 1.03x faster", or why it
// did not run ("cuBLAS sgemv: not run: libcublas.so.13 ... not found").
std::string describe_baseline(const TuningResult& result, const BaselineResult& baseline);

// Schema-versioned JSON of the whole run (the --json output).
nlohmann::json to_json(const TuningResult& result, std::size_t top = SIZE_MAX);
nlohmann::json evaluation_to_json(const search::Space& space, const Evaluation& e);
// The energy's fields of a candidate's JSON (joules_per_launch, energy_min_j,
// energy_max_j, energy_spread, energy_repeats, mean_watts, idle_watts;
// energy_error), where it has them.
void add_energy_json(nlohmann::json& j, const Evaluation& e);
// Every evaluation in evaluation order, as a recording's trials
// (search/recording.hpp): {config, status, time_s} or {config, status, reason}.
nlohmann::json trials_to_json(const TuningResult& result);

} // namespace memtune
