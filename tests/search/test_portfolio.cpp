#include <memtune/search/portfolio.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using namespace memtune::search;

TEST_CASE("a fresh portfolio draws every arm with equal probability") {
  const HedgePortfolio hedge(3);
  for (double p : hedge.probabilities()) CHECK(p == doctest::Approx(1.0 / 3.0));
  std::mt19937_64 engine{7};
  std::vector<int> counts(3, 0);
  for (int i = 0; i < 3000; ++i) ++counts[hedge.choose(engine)];
  for (int c : counts) CHECK(c > 850);
}

TEST_CASE("rewards shift the draws towards the rewarded arm, as softmax(eta * gains)") {
  HedgePortfolio hedge(2, 2.0);
  hedge.reward({1.0, 0.0});
  const auto p = hedge.probabilities();
  CHECK(p[0] == doctest::Approx(1.0 / (1.0 + std::exp(-2.0))));
  CHECK(p[0] + p[1] == doctest::Approx(1.0));
  hedge.reward({0.0, 1.0});
  CHECK(hedge.probabilities()[0] == doctest::Approx(0.5));
}

TEST_CASE("huge gains do not overflow") {
  HedgePortfolio hedge(2);
  hedge.reward({1e6, 0.0});
  CHECK(hedge.probabilities()[0] == doctest::Approx(1.0));
  std::mt19937_64 engine{1};
  CHECK(hedge.choose(engine) == 0);
}

TEST_CASE("the same seed draws the same arms") {
  HedgePortfolio hedge(3);
  hedge.reward({0.3, -0.2, 0.1});
  std::mt19937_64 a{5}, b{5};
  for (int i = 0; i < 50; ++i) CHECK(hedge.choose(a) == hedge.choose(b));
}

TEST_CASE("contract violations throw") {
  CHECK_THROWS_AS(HedgePortfolio(0), std::invalid_argument);
  CHECK_THROWS_AS(HedgePortfolio(2, 0.0), std::invalid_argument);
  HedgePortfolio hedge(2);
  CHECK_THROWS_AS(hedge.reward({1.0}), std::invalid_argument);
}
