#include <memtune/search/run_search.hpp>

#include <algorithm>
#include <deque>

namespace memtune::search {

SearchResult run_search(Strategy& strategy, const Objective& objective, StopRules stop, std::size_t workers) {
  SearchResult result;
  SearchProgress progress;
  std::deque<Config> outstanding;
  bool exhausted = false;
  stop.start();
  for (;;) {
    if (auto why = stop.check(progress)) {
      result.stop_reason = std::move(*why);
      break;
    }
    const std::size_t in_flight = std::max<std::size_t>(1, std::min(workers, strategy.lookahead()));
    while (!exhausted && outstanding.size() < in_flight) {
      std::optional<Config> config = strategy.next();
      if (!config) exhausted = true;
      else outstanding.push_back(std::move(*config));
    }
    if (outstanding.empty()) {
      result.stop_reason = "space exhausted";
      break;
    }
    Config config = std::move(outstanding.front());
    outstanding.pop_front();
    Trial trial = objective(config);
    trial.config = std::move(config);
    strategy.observe(trial);
    ++progress.evaluations;
    if (!trial.ok()) ++progress.failures;
    else if (!result.best || *trial.time_s < *result.best->time_s) {
      result.best = trial;
      progress.best_time_s = trial.time_s;
    }
    result.trials.push_back(std::move(trial));
  }
  return result;
}

} // namespace memtune::search
