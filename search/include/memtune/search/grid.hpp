#pragma once
// Exhaustive search in grid order (the first axis varies slowest).
#include <memtune/search/strategy.hpp>

#include <vector>

namespace memtune::search {

class GridSearch final : public Strategy {
public:
  explicit GridSearch(const Space& space) : configs_(space.enumerate()) {}
  [[nodiscard]] std::string name() const override { return "grid"; }
  std::optional<Config> next() override;
  void observe(const Trial&) override {}
  [[nodiscard]] std::size_t lookahead() const override { return configs_.size(); }
  [[nodiscard]] std::size_t size() const { return configs_.size(); }

private:
  std::vector<Config> configs_;
  std::size_t next_ = 0;
};

} // namespace memtune::search
