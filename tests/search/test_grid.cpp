#include "spaces.hpp"

#include <memtune/search/grid.hpp>

#include <doctest/doctest.h>

#include <limits>

using namespace memtune::search;

TEST_CASE("grid proposes every valid config once, in enumerate order, then stops") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  CHECK(grid.name() == "grid");
  CHECK(grid.lookahead() == std::numeric_limits<std::size_t>::max()); // results never change the order
  std::vector<Config> seen;
  while (auto c = grid.next()) {
    CHECK(s.is_valid(*c));
    grid.observe(testing::ok_trial(*c, 1.0));
    seen.push_back(*c);
  }
  CHECK(seen == s.enumerate());
  CHECK_FALSE(grid.next().has_value());
}
