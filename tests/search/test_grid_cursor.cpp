#include "spaces.hpp"

#include <memtune/search/grid_cursor.hpp>

#include <doctest/doctest.h>

#include <chrono>

using namespace memtune::search;

TEST_CASE("a grid cursor walks the valid configs in grid order, testing every cross-product point once") {
  const Space s = testing::medium_space();
  GridCursor walk(s);
  std::vector<Config> seen;
  while (auto c = walk.next()) seen.push_back(*c);
  CHECK(walk.position() == s.cross_product_size());
  CHECK_FALSE(walk.next().has_value());
  // The order enumerate() always had: every cross-product index, invalid ones skipped.
  std::vector<Config> expected;
  for (std::size_t i = 0; i < s.cross_product_size(); ++i)
    if (s.is_valid(s.at_index(i))) expected.push_back(s.at_index(i));
  CHECK(seen == expected);
  CHECK(seen.size() == 460);
}

TEST_CASE("a grid cursor starts a 10^7 space at once and walks it lazily") {
  const Space s = testing::huge_space();
  const auto started = std::chrono::steady_clock::now();
  GridCursor walk(s);
  std::size_t count = 0;
  std::optional<Config> last;
  while (count < 100'000) {
    last = walk.next();
    REQUIRE(last.has_value());
    ++count;
  }
  // a, b = 1, 1 for the first 10^5 points: all valid.
  CHECK(walk.position() == 100'000);
  CHECK(*last == s.at_index(99'999));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  MESSAGE("10^5 configs of a 10^7 space walked in " << seconds << " s");
  CHECK(seconds < 10.0);
}

TEST_CASE("a grid cursor on a space with no valid config, or no axes, ends at once") {
  Space none;
  GridCursor empty(none);
  CHECK_FALSE(empty.next().has_value());
  Space s;
  s.add(Axis::ordinal("a", {1, 2, 3}));
  s.require((axis("a") > 5).because("never"));
  GridCursor walk(s);
  CHECK_FALSE(walk.next().has_value());
  CHECK(walk.position() == 3);
}
