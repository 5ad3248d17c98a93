#pragma once
// What `memtune report` reads, in one model: runs (a tuning run's --json
// output or a --record recording, measured or modeled), search-benchmark
// curves (memtune_search_bench --json, or kernel_tuner_compare.py --json),
// and device figures (a target file written by `memtune probe --save-target`,
// whose measured copy bandwidth is the copy ceiling of runs on that GPU).
//
// Readers take what each format has and tolerate keys they do not know (a
// later format may add, e.g., a device per trial).
#include <memtune/search/space.hpp>
#include <memtune/search/strategy.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace memtune::report {

// One space evaluated once: every trial in evaluation order.
struct Run {
  std::string source;             // the file it came from ("" when built in memory)
  std::string template_name;
  nlohmann::json problem = nlohmann::json::object();
  nlohmann::json device = nlohmann::json::object(); // {"name", "compute_capability", "sm_count"}
  bool measured = true;           // false: predicted by the analytical model
  std::string target;             // the catalogue target a modeled run predicted
  std::string strategy;           // "" when the input does not say
  std::string tool;
  search::Space space;
  std::vector<search::Trial> trials;
  // [J] per launch of each trial, index-aligned with trials, where the run
  // measured energy (--energy, --objective energy|edp); empty when none did.
  std::vector<std::optional<double>> joules_per_launch;
  // The GPU ordinal each trial ran on, index-aligned with trials, where the
  // run measured on several GPUs (--devices; a trial's "device"); empty when
  // no trial says.
  std::vector<std::optional<int>> trial_devices;
  bool order_known = true;        // false: an old --json listing only ranked + failures
  std::optional<double> copy_ceiling_gbps;
  std::optional<double> peak_gbps;      // the target's theoretical DRAM bandwidth
  std::optional<double> bytes_moved;    // [bytes] per launch, for GB/s
  std::optional<double> wall_seconds;
  std::string stop_reason;
  std::vector<std::string> notes; // what the reader had to assume or leave out

  [[nodiscard]] std::string device_name() const;
  [[nodiscard]] std::string mode() const { return measured ? "measured" : "modeled"; }
  // "n=16777216 taps=21"
  [[nodiscard]] std::string problem_text() const;
  // The fastest successful trial; nullptr when none succeeded.
  [[nodiscard]] const search::Trial* best() const;
  // Every valid configuration of the space has a trial (a whole grid).
  [[nodiscard]] bool complete() const;
  // The distinct GPU ordinals of trial_devices, increasing.
  [[nodiscard]] std::vector<int> gpus() const;
};

// One strategy's convergence over many seeds on one recorded space.
struct BenchCurve {
  std::string source;        // the benchmark's JSON
  std::string tool;          // "memtune_search_bench 0.1.0", "kernel_tuner_compare (...)"
  std::string recording;     // the recording it replayed, as written there
  std::string strategy;      // "bayes", "kt:bayes_opt", ...
  std::size_t configs = 0;
  double optimum_s = 0.0;
  std::optional<double> to5_median;       // evaluations to within 5%; nullopt: never (or not given)
  // Best time so far / optimum after k = 1.. evaluations over the seeds
  // (median and quartiles); empty when the benchmark kept only summaries.
  std::vector<double> median, q1, q3;
};

// Measured figures of one GPU (a calibrated target file).
struct DeviceFigures {
  std::string source;
  std::string device_name;   // display_name: the driver's name of the GPU
  double peak_gbps = 0.0;
  std::optional<double> copy_gbps;
};

struct Inputs {
  std::vector<Run> runs;
  std::vector<BenchCurve> curves;
  std::vector<DeviceFigures> figures;
};

// Reads one file of any supported kind into `inputs`. Throws
// std::runtime_error naming the file, and the line for JSON syntax errors.
void load_input(const std::filesystem::path& path, Inputs& inputs);

// A run from a document in memory: a --json document or a recording.
// Throws std::invalid_argument saying what is missing or wrong.
[[nodiscard]] Run run_from_json(const nlohmann::json& doc, const std::string& source);

// Fills what a run lacks from memtune's catalogues: bytes moved (the template
// catalogue, from the problem), peak bandwidth (the target catalogue, by
// device name), and the copy ceiling and peak of a matching DeviceFigures.
void complete_from_catalogues(Inputs& inputs);

} // namespace memtune::report
