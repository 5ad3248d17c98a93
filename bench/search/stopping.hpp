#pragma once
// What a tuning run with the product's stop rules keeps: `memtune ...
// --strategy bayes --budget B --patience P` replayed on a recorded space. Per
// recording, strategy and setting, over the seeds: the evaluations the run
// spent and the best it kept over the recording's optimum (stopping.cpp).
// The main table's metrics run every search to 1 % of the optimum; this
// one stops where the tuner would, so it shows what a patience costs on a
// space whose few good configurations lie where the prior does not look.
#include <memtune/search/factory.hpp>
#include <memtune/search/run_search.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace memtune::bench {

struct StopSetting {
  std::size_t budget = 0;   // evaluations at most (0: the bench's --max-evaluations)
  std::size_t patience = 0; // evaluations without a new best (0: never stops for that)
};

// "180:60" (budget:patience), "300:0", ":60"; throws std::invalid_argument naming the text.
[[nodiscard]] StopSetting parse_stop_setting(const std::string& text);

struct StoppingRow {
  std::string recording, strategy;
  StopSetting setting;
  std::vector<double> evaluations; // per seed
  std::vector<double> kept;        // per seed: best kept / optimum (infinity: nothing succeeded)
};

// `strategy` (a search::make_strategy name) replayed on `objective` with
// seeds 1..seeds, each run stopped by `setting` (a budget of 0:
// `max_evaluations`); kept times are over `optimum_s`. `label` names the row
// ("bayes+model" for bayes with a prior in `options`).
[[nodiscard]] StoppingRow replay_stopped(const std::string& recording, const std::string& label,
                                         const std::string& strategy, const search::Space& space,
                                         const search::Objective& objective, const search::StrategyOptions& options,
                                         StopSetting setting, int seeds, std::size_t max_evaluations,
                                         double optimum_s);

// One line per row: evaluations (median [q1-q3]), kept / optimum (median and
// worst) and the runs that kept a configuration within 5 % of the optimum.
void print_stopping_table(const std::vector<StoppingRow>& rows);

} // namespace memtune::bench
