#pragma once
// The modeled grid's strategy (bounded_grid.hpp): configurations proposed in
// order of a lower bound on their time, until k are known and the next bound
// cannot enter the top k. It is a search::Strategy, so the modeled grid runs
// through the one candidate loop (search::run_search, via run_search_loop):
// compiled ahead in the pool, appended as they end, counted like any search.
//
// Each observation tells it a candidate's time against that candidate's
// bound; a time below its bound means the bound is not one, and from then on
// it proposes every configuration left. Until it has observed the proposals
// outstanding it cannot know whether the next bound still matters, so a
// nullopt from next() is not final (may_propose_later()): the loop asks
// again as each trial ends, as the cut-off tightens or the bound breaks.
#include <memtune/search/strategy.hpp>

#include <cstddef>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace memtune {

// The k best predicted times so far, and whether a bound can still beat them.
class TopKCutoff {
public:
  explicit TopKCutoff(std::size_t k) : k_(k) {}
  // Whether a candidate whose lower bound is `bound` can still enter the top k.
  [[nodiscard]] bool worth_compiling(double bound) const {
    return violated_ || best_.size() < k_ || bound < *std::prev(best_.end());
  }
  // A compiled candidate's prediction (nullopt: it failed) and its bound.
  void add(std::optional<double> predicted, double bound);
  // True once a prediction undercut its bound: the bound is not one.
  [[nodiscard]] bool violated() const { return violated_; }

private:
  std::size_t k_;
  std::multiset<double> best_; // at most k_ entries
  bool violated_ = false;
};

class BoundOrder final : public search::Strategy {
public:
  // `candidates`: each configuration with its lower bound, in grid order
  // (which breaks ties between equal bounds, so runs are reproducible).
  // `k`: the top k to find exactly. `lookahead`: proposals outstanding at
  // most; each one past the cut-off that is already proposed gets compiled,
  // so this is the compile-ahead the cut-off may overshoot by.
  BoundOrder(std::vector<std::pair<search::Config, double>> candidates, std::size_t k, std::size_t lookahead);

  [[nodiscard]] std::string name() const override { return "bounded grid"; }
  std::optional<search::Config> next() override;
  // A trial of a configuration it did not propose has no bound here and is ignored.
  void observe(const search::Trial& trial) override;
  [[nodiscard]] std::size_t lookahead() const override { return lookahead_; }
  [[nodiscard]] bool may_propose_later() const override { return true; }

  // Configurations not proposed (yet): once the loop ended, those bounded out.
  [[nodiscard]] std::size_t not_proposed() const { return candidates_.size() - next_; }
  [[nodiscard]] bool bound_violated() const { return cutoff_.violated(); }

private:
  std::vector<std::pair<search::Config, double>> candidates_; // sorted by bound
  std::size_t next_ = 0;
  std::size_t lookahead_;
  TopKCutoff cutoff_;
  std::vector<std::pair<search::Config, double>> outstanding_; // proposed, not observed: with their bounds
};

} // namespace memtune
