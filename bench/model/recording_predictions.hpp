#pragma once
// Shared by the model-validation tools: the model's prediction for every
// configuration of a recorded space, and rank statistics against measurement
// (Spearman from rank_correlation.hpp).
#include <memtune/description/problem.hpp>
#include <memtune/model/rank_correlation.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/model/target.hpp>
#include <memtune/output/tuning_result.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace memtune::bench {

// A recording's measured times by configuration (its JSON text), ok trials only.
std::map<std::string, double> times_by_config(const search::Recording& rec);

// Times [s] by configuration JSON text of a result's successful evaluations.
std::map<std::string, double> times_by_config(const TuningResult& result);

// Each successful evaluation's place in the result's ranking (0: the tool's
// pick), by configuration JSON text: how the tool orders ties.
std::map<std::string, std::size_t> rank_by_config(const TuningResult& result);

// The model's prediction for every configuration of a recording: a
// template's through the modeled tuner (every configuration compiled for its
// registers), a probe's through the descriptions the probe runs with
// (probe/prior.hpp).
struct Predictions {
  search::Space space; // the space the keys are written in (the description's today; a probe's recorded one)
  std::map<std::string, double> seconds;
  std::map<std::string, std::size_t> rank;  // the modeled run's ranking (rank_by_config; empty for probes)
  std::map<std::string, std::string> bound; // the binding bound ("" for probes)
  std::map<std::string, std::string> facts; // CSV columns: registers ... exposed_s
};
Predictions predict_recording(const search::Recording& rec, const Problem& problem, const Target& target);

// A recorded configuration's key in `space`: an axis the space gained since
// the recording takes its first value, the kernel the recording measured;
// nullopt for a configuration `space` cannot hold (a value it lacks).
std::optional<std::string> key_in(const search::Space& space, const search::Recording& rec, const search::Config& config);

// A recording's ok trials in its order (grid order), keyed in `space`: (configuration JSON text, time [s]).
std::vector<std::pair<std::string, double>> measured_in_order(const search::Recording& rec, const search::Space& space);

// Measured against predicted over the configurations both have. The pick is
// the measured configuration the prediction ranks first: by `rank` where
// given (the tool's ranking, ties broken as it breaks them), else the
// fastest prediction, the first in the recording's order among ties.
struct Score {
  std::size_t configs = 0;
  double spearman = 0;
  // Pairs measured more than noise_gap apart, and the fraction ordered as
  // measured (rank_correlation.hpp, ordered_pairs): Spearman counts the order
  // of configurations within noise of each other too.
  PairOrder beyond_noise;
  double pick_predicted_s = 0; // the prediction's fastest, as predicted
  double pick_measured_s = 0;  // ... as measured
  double best_measured_s = 0;  // the measured best
  [[nodiscard]] double pick_error() const { return pick_measured_s / best_measured_s - 1.0; } // 0.05 = 5 % slower
};
// Run-to-run noise of one whole-grid recording: two recordings of the same
// space on the same GPU differ by up to 2-3 % per configuration
// (docs/model.md, Validation), so pairs closer than 3 % have no measured order.
inline constexpr double noise_gap = 0.03;
// Throws std::runtime_error when fewer than 3 configurations are in common.
Score score(const std::vector<std::pair<std::string, double>>& measured,
            const std::map<std::string, double>& predicted, const std::map<std::string, std::size_t>& rank = {});

} // namespace memtune::bench
