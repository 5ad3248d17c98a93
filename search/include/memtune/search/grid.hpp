#pragma once
// Exhaustive search in grid order (the first axis varies slowest), walked
// lazily: a space of 10^7 configs costs one Config of memory.
#include <memtune/search/grid_cursor.hpp>
#include <memtune/search/strategy.hpp>

#include <limits>

namespace memtune::search {

class GridSearch final : public Strategy {
public:
  // The space is borrowed and must outlive the strategy.
  explicit GridSearch(const Space& space) : walk_(space) {}
  [[nodiscard]] std::string name() const override { return "grid"; }
  std::optional<Config> next() override { return walk_.next(); }
  void observe(const Trial&) override {}
  // Grid order does not depend on results: callers may run as far ahead as they like.
  [[nodiscard]] std::size_t lookahead() const override { return std::numeric_limits<std::size_t>::max(); }

private:
  GridCursor walk_;
};

} // namespace memtune::search
