#include <memtune/search/initial_design.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace memtune::search;

namespace {
// A 10 x 10 ordinal grid with a two-label category: 200 points.
Points grid() {
  Points p = Points::zeros(200, 2, 1);
  for (int i = 0; i < 200; ++i) {
    p.ordinal(i, 0) = (i / 20) / 9.0;
    p.ordinal(i, 1) = ((i / 2) % 10) / 9.0;
    p.categorical(i, 0) = i % 2;
  }
  return p;
}
} // namespace

TEST_CASE("the design picks distinct, untaken points and marks them taken") {
  const Points p = grid();
  std::vector<bool> taken(200, false);
  for (int i = 0; i < 200; i += 3) taken[static_cast<std::size_t>(i)] = true;
  const std::vector<bool> before = taken;
  std::mt19937_64 engine(1);
  const auto chosen = latin_hypercube_design(p, {2}, 10, taken, engine);
  CHECK(chosen.size() == 10);
  CHECK(std::set<std::size_t>(chosen.begin(), chosen.end()).size() == 10);
  for (auto i : chosen) {
    CHECK_FALSE(before[i]);
    CHECK(taken[i]);
  }
}

TEST_CASE("the design spreads over each axis like a Latin hypercube") {
  const Points p = grid();
  std::vector<bool> taken(200, false);
  std::mt19937_64 engine(2);
  const auto chosen = latin_hypercube_design(p, {2}, 10, taken, engine);
  std::set<double> x0, x1;
  int category_one = 0;
  for (auto i : chosen) {
    x0.insert(p.ordinal(static_cast<Eigen::Index>(i), 0));
    x1.insert(p.ordinal(static_cast<Eigen::Index>(i), 1));
    category_one += p.categorical(static_cast<Eigen::Index>(i), 0);
  }
  // 10 strata on 10 levels: every level once (i.i.d. sampling would average 6.5).
  CHECK(x0.size() == 10);
  CHECK(x1.size() == 10);
  CHECK(category_one == 5); // the category is stratified too
}

TEST_CASE("the design is reproducible, and never asks for more than is free") {
  const Points p = grid();
  std::vector<bool> t1(200, false), t2(200, false);
  std::mt19937_64 e1(5), e2(5);
  CHECK(latin_hypercube_design(p, {2}, 12, t1, e1) == latin_hypercube_design(p, {2}, 12, t2, e2));

  std::vector<bool> almost(200, true);
  almost[17] = almost[42] = false;
  auto last_two = latin_hypercube_design(p, {2}, 5, almost, e1);
  std::sort(last_two.begin(), last_two.end());
  CHECK(last_two == std::vector<std::size_t>{17, 42});
  CHECK(latin_hypercube_design(p, {2}, 5, almost, e1).empty());
  std::vector<bool> wrong(3, false);
  CHECK_THROWS_AS((void)latin_hypercube_design(p, {2}, 5, wrong, e1), std::invalid_argument);
}
