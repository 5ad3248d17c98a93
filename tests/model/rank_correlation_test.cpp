// Rank agreement between predicted and measured times (rank_correlation.hpp).
#include <memtune/model/rank_correlation.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune;

TEST_CASE("spearman: 1 for the same order, -1 for the reverse, ties at their mean rank") {
  CHECK(average_ranks({3.0, 1.0, 3.0}) == std::vector<double>{2.5, 1.0, 2.5});
  CHECK(spearman({1, 2, 3, 4}, {10, 20, 30, 40}) == doctest::Approx(1.0));
  CHECK(spearman({1, 2, 3, 4}, {4, 3, 2, 1}) == doctest::Approx(-1.0));
}

TEST_CASE("ordered_pairs: only pairs measured further apart than the noise count") {
  // 1.00 and 1.01 are within 3 % (noise): their order is not asked. The other
  // two pairs (1.00 vs 2.00, 1.01 vs 2.00) are; the prediction orders both right
  // though it swaps the noise pair, which Spearman would charge it for.
  const std::vector<double> measured{1.00, 2.00, 1.01};
  const std::vector<double> predicted{5, 9, 4};
  const PairOrder p = ordered_pairs(measured, predicted, 0.03);
  CHECK(p.pairs == 2);
  CHECK(p.fraction == doctest::Approx(1.0));
  CHECK(spearman(measured, predicted) < 0.6);
  // With no noise allowance the swapped pair counts: 2 of 3 right.
  const PairOrder all = ordered_pairs(measured, predicted, 0.0);
  CHECK(all.pairs == 3);
  CHECK(all.fraction == doctest::Approx(2.0 / 3.0));
}

TEST_CASE("ordered_pairs: a reversed pair counts 0, a predicted tie a half, none apart gives NaN") {
  CHECK(ordered_pairs({1.0, 2.0}, {2, 1}, 0.03).fraction == doctest::Approx(0.0));
  CHECK(ordered_pairs({1.0, 2.0}, {3, 3}, 0.03).fraction == doctest::Approx(0.5));
  const PairOrder none = ordered_pairs({1.0, 1.02}, {1, 2}, 0.03);
  CHECK(none.pairs == 0);
  CHECK(std::isnan(none.fraction));
}
