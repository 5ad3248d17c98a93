#include <memtune/search/factory.hpp>

#include <memtune/search/grid.hpp>
#include <memtune/search/random_search.hpp>

#include <stdexcept>

namespace memtune::search {

std::vector<std::string> strategy_names() { return {"grid", "random", "bayes"}; }

std::unique_ptr<Strategy> make_strategy(const std::string& name, const Space& space, std::mt19937_64& engine,
                                        const StrategyOptions& options) {
  if (name == "grid") return std::make_unique<GridSearch>(space);
  if (name == "random") return std::make_unique<RandomSearch>(space, engine);
  if (name == "bayes") return std::make_unique<BayesianSearch>(space, engine, options.bayes);
  std::string known;
  for (const auto& n : strategy_names()) {
    if (!known.empty()) known += ", ";
    known += n;
  }
  throw std::invalid_argument("unknown search strategy '" + name + "' (known: " + known + ")");
}

} // namespace memtune::search
