#pragma once
// A strategy that proposes given configurations first, then another
// strategy's: the configurations a caller knows are worth a measurement
// before the search's own (a sweep measures the best of the nearest size
// done at each new size, so the launcher's per-call rule knows how it holds
// between the two). Every observation reaches the inner strategy, so bayes
// learns from them and never proposes them again; an inner proposal of a
// configuration still outstanding here is skipped, and a configuration
// already observed (a resumed run's journal) is not proposed again.
#include <memtune/search/strategy.hpp>

#include <cstddef>
#include <memory>
#include <set>
#include <vector>

namespace memtune::search {

class FirstThen final : public Strategy {
public:
  // `first`: valid configurations of the inner strategy's space, in order.
  FirstThen(std::vector<Config> first, std::unique_ptr<Strategy> then);

  [[nodiscard]] std::string name() const override { return then_->name(); }
  std::optional<Config> next() override;
  void observe(const Trial& trial) override;
  [[nodiscard]] std::size_t lookahead() const override { return then_->lookahead(); }
  [[nodiscard]] bool may_propose_later() const override { return then_->may_propose_later(); }

private:
  std::vector<Config> first_;
  std::size_t next_first_ = 0;
  std::vector<Config> outstanding_; // proposed from first_, not observed yet
  std::set<Config> observed_;       // every config observed, to skip a first one already measured
  std::unique_ptr<Strategy> then_;
};

} // namespace memtune::search
