#pragma once
// What every tuning command shares, whatever the kernel: the options
// (strategy, budgets, target, output, cache), reading the problem from text,
// and the run itself (tune or predict, print, record, save). The built-in
// templates' commands and `memtune tune --spec` are both made of these.
#include "transfer_options.hpp"

#include <memtune/description/kernel_description.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/tune/tuner.hpp>

#include "devices_option.hpp"
#include "survival_options.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::cli {

struct CommonOptions {
  std::string strategy = "grid";
  std::size_t budget = 0;
  std::size_t patience = 0;
  double time_budget = 0.0;
  std::uint64_t seed = 1;
  int device = 0;
  bool device_given = false;     // --device was on the command line
  DevicesOptions devices;        // --devices, --mixed-devices
  bool warm = false;
  std::string objective = "time"; // time | energy | edp (objective.hpp)
  bool objective_given = false;   // --objective given: it overrides the description's "objective"
  bool energy = false;            // --energy: measure and show joules per launch, rank by time
  int energy_repeats = 5;
  std::string l2_flush = "clean"; // clean | dirty (l2_flush.hpp)
  bool json = false;             // --json, an alias of --format json
  std::string format = "table";
  std::string table;             // --table KEY: with --format csv, that one table
  std::string save;
  std::string record;
  std::string report;            // an HTML report of the run
  std::size_t top = 10;
  std::string cache_dir;
  std::string target = "local";
  bool predict = false;          // --predict: model --target even where its GPU is here
  bool no_cache = false;
  bool no_model_prior = false;
  bool quiet = false;
  std::vector<std::string> compare;
  std::vector<std::string> only; // "axis=value"
  std::string shard;             // "I/N"; empty: from a Slurm job array, else none
  TransferOptions transfer;      // --from, --nvrtc-kepler
  SurvivalOptions survival;       // isolation, watchdog, journal
};

// Adds the shared options to a tuning command; `baselines` are the names
// --compare knows (empty: none).
void add_tuning_options(CLI::App& command, CommonOptions& o, const std::vector<std::string>& baselines);

class ProgressLine; // progress.hpp

// The TuneOptions of the command's options (checks --record/--save, --compare,
// --only, --shard, --journal: ArgumentError). Progress, unless --quiet, goes
// to `err` through `progress`, which must outlive the options.
TuneOptions tune_options(const KernelDescription& kernel, const CommonOptions& o, std::optional<ProgressLine>& progress,
                         std::ostream& err);

// One run as the options ask: tune() on the local GPU (one result per GPU
// model with --mixed-devices) or tune_modeled() for --target. Throws
// DeviceRequired without a GPU, ArgumentError for options that do not fit.
std::vector<TuningResult> run_tuning(const KernelDescription& kernel, const Problem& problem, const CommonOptions& o,
                                     const TuneOptions& t);

// Where one result's files go ("" for none): a run's own, or a sweep point's.
struct RunFiles {
  std::string record, report;
  bool per_model = false;         // one of several GPU models' results (--mixed-devices)
  std::size_t runner_ups = kProfileRunnerUps; // kept with the --save entry
  std::vector<nlohmann::json> keep; // kept too where timed (a sweep: the other sizes' bests)
  bool quiet_save = false;        // no "saved to" line (a sweep says it once)
};
// Writes --record (and ends its journal), --report and --save for `result`.
void write_run_files(const KernelDescription& kernel, const TuningResult& result, const CommonOptions& o,
                     const TuneOptions& t, const RunFiles& files, bool table, std::ostream& out, std::ostream& err);

// The exit code of one result: 0 when it ranked something and was not aborted.
int run_exit_code(const TuningResult& result);

// Tunes on the local GPU or predicts for --target, prints the result (--format),
// writes --record, --report and --save. Returns the exit code; a bad argument
// throws ArgumentError, a bad file InputError (io/errors.hpp).
int run_kernel(const KernelDescription& kernel, const Problem& problem, const CommonOptions& o, std::ostream& out,
               std::ostream& err);

} // namespace memtune::cli
