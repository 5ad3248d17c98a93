#pragma once
// The ask/tell loop, the one every search runs through (the tuner's, the
// search benchmark's replays): the strategy proposes, an evaluator evaluates,
// the strategy observes each trial as it ends, until a stop rule fires or the
// strategy has nothing left.
//
//   auto result = run_search(strategy, [&](const Config& c) { return evaluate(c); },
//                            StopRules{}.add(EvaluationBudget{40}));
//   if (result.best) use(result.best->config);
#include <memtune/search/stop_rules.hpp>
#include <memtune/search/strategy.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace memtune::search {

// Evaluates one config. A failing candidate is a Trial with no time and a
// status, not an exception; an exception aborts the search and propagates.
using Objective = std::function<Trial(const Config&)>;

// Thrown by Evaluator::start or finish when the evaluator can evaluate
// nothing more (its GPU context became unusable): that evaluation is lost,
// nothing new starts, and what is still in flight ends and is kept.
class EvaluatorLost : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// How the loop evaluates proposals: each at once (a replay, a model), or
// started and finished later with up to capacity() in flight (one per GPU).
// Proposals are named by tickets 0, 1, 2, ... in the order proposed, and are
// started in that order.
class Evaluator {
public:
  virtual ~Evaluator() = default;
  // Evaluations in flight at once (>= 1).
  [[nodiscard]] virtual std::size_t capacity() const { return 1; }
  // A proposal accepted: work may begin ahead of its start (a compile). A
  // proposal the loop stops before starting is never started.
  virtual void proposed(std::uint64_t /*ticket*/, const Config& /*config*/) {}
  // Starts a proposal's evaluation: returns its trial when it ended at once,
  // or nullopt when it is in flight and finish() hands it over later.
  // Throws EvaluatorLost.
  virtual std::optional<Trial> start(std::uint64_t ticket, const Config& config) = 0;
  // Waits for an evaluation in flight to end, whichever ends first, and
  // returns its ticket and trial. Precondition: one is in flight. Throws
  // EvaluatorLost (that one is then lost).
  virtual std::pair<std::uint64_t, Trial> finish() = 0;
};

struct LoopOptions {
  // Proposals outstanding (proposed, not yet ended) at most, e.g. a few per
  // compile thread to compile ahead. The loop raises it to the evaluator's
  // capacity and lowers it to the strategy's lookahead(); at least 1.
  std::size_t ahead = 1;
  // The caller called stop.start() already: the search began before its
  // strategy was made, and a wall-time budget counts from then. Otherwise
  // the loop calls it.
  bool stop_started = false;
  // The stop reason when the space's deadline passes inside the strategy's
  // next() (Space::set_deadline); empty: the DeadlinePassed's message.
  std::string deadline_reason;
  // Called for each ended trial, after the strategy observed it and before
  // the stop rules see it, in the order trials end.
  std::function<void(std::uint64_t ticket, const Trial&)> on_trial;
};

struct SearchResult {
  std::vector<Trial> trials;    // in the order they ended
  std::optional<Trial> best;    // fastest successful trial (the first, on ties); nullopt if none succeeded
  std::string stop_reason;      // from the rule that fired, or the deadline; "" when the strategy ran out
  std::string lost;             // the last EvaluatorLost's message; "" when the evaluator never gave out
};

// The loop. Stop rules are checked once before anything is proposed (a
// budget of 0 proposes nothing) and after each trial ends. Proposals never
// exceed the stop rules' max_evaluations(), and outstanding ones never
// exceed LoopOptions::ahead as adjusted there. When a stop rule fires, the
// deadline passes or the evaluator is lost, nothing new starts; what is in
// flight still ends, is observed and kept (without another stop check), and
// proposals not yet started are dropped. Each trial's config is the one
// proposed under its ticket, whatever the evaluator put there.
[[nodiscard]] SearchResult run_search(Strategy& strategy, Evaluator& evaluator, StopRules stop,
                                      const LoopOptions& options);

// The loop with `objective` as `workers` parallel evaluators of equal speed
// (a replay): up to min(workers, strategy.lookahead()) proposals are
// outstanding, the oldest ends first and is observed, then the strategy
// proposes again (with the others still outstanding). When a stop rule
// fires, the other workers' evaluations still end and are kept. The
// objective runs as each evaluation ends, in the order proposed.
[[nodiscard]] SearchResult run_search(Strategy& strategy, const Objective& objective, StopRules stop = {},
                                      std::size_t workers = 1);

} // namespace memtune::search
