#pragma once
// Strategies by name, for the CLI and the library facade.
//
//   std::mt19937_64 engine{seed};
//   auto s = make_strategy("bayes", space, engine);   // borrows space and engine
#include <memtune/search/bayes.hpp>
#include <memtune/search/strategy.hpp>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace memtune::search {

struct StrategyOptions {
  BayesOptions bayes; // used by "bayes" only
};

// "grid", "random" or "bayes". The space and the engine are borrowed by the
// strategy and must outlive it. Throws std::invalid_argument listing the known names.
[[nodiscard]] std::unique_ptr<Strategy> make_strategy(const std::string& name, const Space& space,
                                                      std::mt19937_64& engine, const StrategyOptions& options = {});

// The names make_strategy accepts, in a fixed order.
[[nodiscard]] std::vector<std::string> strategy_names();

} // namespace memtune::search
