#include <memtune/search/run_search.hpp>

#include <algorithm>
#include <deque>
#include <map>

namespace memtune::search {

SearchResult run_search(Strategy& strategy, Evaluator& evaluator, StopRules stop, const LoopOptions& options) {
  SearchResult result;
  SearchProgress progress;
  if (!options.stop_started) stop.start();
  if (auto why = stop.check(progress)) {
    result.stop_reason = std::move(*why);
    return result;
  }
  const std::optional<std::size_t> cap = stop.max_evaluations();
  const std::size_t capacity = std::max<std::size_t>(evaluator.capacity(), 1);
  // At least one proposal per evaluation in flight, never more than the
  // strategy can account for before its observations arrive.
  const std::size_t ahead =
      std::max<std::size_t>(1, std::min(strategy.lookahead(), std::max(options.ahead, capacity)));

  std::map<std::uint64_t, Config> outstanding; // proposed, not ended: by ticket
  std::deque<std::uint64_t> waiting;           // proposed, not started: oldest first
  std::uint64_t proposed = 0;
  std::size_t in_flight = 0;
  bool exhausted = false;
  bool stopping = false; // a stop rule fired, the deadline passed or the evaluator was lost: start nothing new

  // An ended evaluation: observed, counted, kept, then the stop rules.
  auto record = [&](std::uint64_t ticket, Trial trial) {
    const auto it = outstanding.find(ticket);
    if (it == outstanding.end())
      throw std::logic_error("run_search: the evaluator ended ticket " + std::to_string(ticket) +
                             ", which is not outstanding");
    trial.config = std::move(it->second);
    outstanding.erase(it);
    strategy.observe(trial);
    if (exhausted && strategy.may_propose_later()) exhausted = false; // ask it again
    ++progress.evaluations;
    if (!trial.ok()) ++progress.failures;
    else if (!result.best || *trial.time_s < *result.best->time_s) {
      result.best = trial;
      progress.best_time_s = trial.time_s;
    }
    result.trials.push_back(std::move(trial));
    if (options.on_trial) options.on_trial(ticket, result.trials.back());
    if (stopping) return; // what was in flight when the search stopped is kept, nothing more
    if (auto why = stop.check(progress)) {
      result.stop_reason = std::move(*why);
      stopping = true; // proposals waiting to start are dropped
    }
  };
  auto lose = [&](const EvaluatorLost& lost) {
    result.lost = lost.what();
    stopping = true;
  };

  while (true) {
    while (!exhausted && !stopping && outstanding.size() < ahead && (!cap || proposed < *cap)) {
      std::optional<Config> next;
      try {
        next = strategy.next();
      } catch (const DeadlinePassed& e) {
        result.stop_reason = options.deadline_reason.empty() ? e.what() : options.deadline_reason;
        stopping = true;
        break;
      }
      if (!next) {
        exhausted = true;
        break;
      }
      const std::uint64_t ticket = proposed++;
      evaluator.proposed(ticket, *next);
      outstanding.emplace(ticket, std::move(*next));
      waiting.push_back(ticket);
    }
    if (!stopping && in_flight < capacity && !waiting.empty()) {
      const std::uint64_t ticket = waiting.front();
      waiting.pop_front();
      std::optional<Trial> ended;
      try {
        ended = evaluator.start(ticket, outstanding.at(ticket));
      } catch (const EvaluatorLost& lost) {
        outstanding.erase(ticket);
        lose(lost);
        continue;
      }
      if (ended) record(ticket, std::move(*ended));
      else ++in_flight;
      continue;
    }
    if (in_flight == 0) break;
    --in_flight;
    std::pair<std::uint64_t, Trial> ended;
    try {
      ended = evaluator.finish();
    } catch (const EvaluatorLost& lost) {
      lose(lost);
      continue;
    }
    record(ended.first, std::move(ended.second));
  }
  return result;
}

namespace {

// `workers` evaluators of equal speed started one after another: the oldest
// evaluation in flight always ends first. The objective runs as it ends.
class Replay final : public Evaluator {
public:
  Replay(const Objective& objective, std::size_t workers) : objective_(objective), workers_(workers) {}
  [[nodiscard]] std::size_t capacity() const override { return workers_; }
  std::optional<Trial> start(std::uint64_t ticket, const Config& config) override {
    in_flight_.emplace_back(ticket, config);
    return std::nullopt;
  }
  std::pair<std::uint64_t, Trial> finish() override {
    auto [ticket, config] = std::move(in_flight_.front());
    in_flight_.pop_front();
    return {ticket, objective_(config)};
  }

private:
  const Objective& objective_;
  std::size_t workers_;
  std::deque<std::pair<std::uint64_t, Config>> in_flight_;
};

} // namespace

SearchResult run_search(Strategy& strategy, const Objective& objective, StopRules stop, std::size_t workers) {
  Replay replay(objective, std::max<std::size_t>(workers, 1));
  LoopOptions options;
  options.ahead = workers;
  return run_search(strategy, replay, std::move(stop), options);
}

} // namespace memtune::search
