#pragma once
// The ask/tell loop: propose, evaluate, observe, until a stop rule fires or
// the strategy has nothing left.
//
//   auto result = run_search(strategy, [&](const Config& c) { return evaluate(c); },
//                            StopRules{}.add(EvaluationBudget{40}));
//   if (result.best) use(result.best->config);
#include <memtune/search/stop_rules.hpp>
#include <memtune/search/strategy.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace memtune::search {

// Evaluates one config. A failing candidate is a Trial with no time and a
// status, not an exception; an exception aborts the search and propagates.
using Objective = std::function<Trial(const Config&)>;

struct SearchResult {
  std::vector<Trial> trials;    // in evaluation order
  std::optional<Trial> best;    // fastest successful trial (the first, on ties); nullopt if none succeeded
  std::string stop_reason;      // from the rule that fired, or "space exhausted"
};

// The trial's config is set to the proposed one whatever the objective put there.
//
// `workers` > 1 replays a search by that many parallel evaluators of equal
// speed: up to min(workers, strategy.lookahead()) proposals are outstanding;
// the oldest is evaluated and observed, then the strategy proposes again
// (with the others still outstanding). Trials are in observation order.
// Proposals outstanding when a stop rule fires are dropped unevaluated.
[[nodiscard]] SearchResult run_search(Strategy& strategy, const Objective& objective, StopRules stop = {},
                                      std::size_t workers = 1);

} // namespace memtune::search
