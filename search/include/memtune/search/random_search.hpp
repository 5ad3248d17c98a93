#pragma once
// Uniform random sampling of the valid configs, without repetition.
#include <memtune/search/strategy.hpp>

#include <random>
#include <vector>

namespace memtune::search {

class RandomSearch final : public Strategy {
public:
  // The engine is borrowed: it must outlive the strategy. Same seed, same order.
  RandomSearch(const Space& space, std::mt19937_64& engine);
  [[nodiscard]] std::string name() const override { return "random"; }
  std::optional<Config> next() override;
  void observe(const Trial&) override {}
  [[nodiscard]] std::size_t lookahead() const override { return order_.size(); }

private:
  std::vector<Config> order_;
  std::size_t next_ = 0;
};

} // namespace memtune::search
