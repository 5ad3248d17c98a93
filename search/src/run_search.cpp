#include <memtune/search/run_search.hpp>

namespace memtune::search {

SearchResult run_search(Strategy& strategy, const Objective& objective, StopRules stop) {
  SearchResult result;
  SearchProgress progress;
  stop.start();
  for (;;) {
    if (auto why = stop.check(progress)) {
      result.stop_reason = std::move(*why);
      break;
    }
    std::optional<Config> config = strategy.next();
    if (!config) {
      result.stop_reason = "space exhausted";
      break;
    }
    Trial trial = objective(*config);
    trial.config = std::move(*config);
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
