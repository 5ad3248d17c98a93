#include <memtune/search/feasibility.hpp>

#include <doctest/doctest.h>

using namespace memtune::search;

namespace {
MixedKernel shape() {
  MixedKernel k = MixedKernel::defaults(1, 1);
  k.length_scales[0] = 0.2;
  k.mismatch_weights[0] = 1.0;
  k.signal_variance = 0.25;
  return k;
}
} // namespace

TEST_CASE("without observations the probability is the prior") {
  const FeasibilityModel m(shape(), Points::zeros(0, 1, 1), {});
  CHECK(m.prior() == doctest::Approx(0.5));
  CHECK(m.probability(Points::zeros(2, 1, 1)) == std::vector<double>{0.5, 0.5});
}

TEST_CASE("probability is low next to failures and high next to successes") {
  // Successes on the left half, failures on the right.
  Points obs = Points::zeros(8, 1, 1);
  std::vector<bool> ok;
  for (int i = 0; i < 8; ++i) {
    obs.ordinal(i, 0) = i / 7.0;
    ok.push_back(i < 4);
  }
  const FeasibilityModel m(shape(), obs, ok);
  CHECK(m.prior() == doctest::Approx(0.5));
  Points at = Points::zeros(3, 1, 1);
  at.ordinal(0, 0) = 0.1;
  at.ordinal(1, 0) = 0.5;
  at.ordinal(2, 0) = 0.95;
  const auto p = m.probability(at);
  CHECK(p[0] > 0.85);
  CHECK(p[2] < 0.15);
  CHECK(p[0] > p[1]);
  CHECK(p[1] > p[2]);
  for (double v : p) CHECK((v >= 1e-3 && v <= 1.0));
}

TEST_CASE("a different category is evidence only at a discount") {
  Points obs = Points::zeros(3, 1, 1); // three failures at x = 0, category 0
  const FeasibilityModel m(shape(), obs, {false, false, false});
  Points at = Points::zeros(2, 1, 1);
  at.categorical(1, 0) = 1;
  const auto p = m.probability(at);
  CHECK(p[0] == doctest::Approx(1e-3)); // the floor
  CHECK(p[1] > p[0]);
  CHECK_THROWS_AS(FeasibilityModel(shape(), obs, {false}), std::invalid_argument);
}

TEST_CASE("the fitted kernel learns which axis decides feasibility") {
  // Fails when axis 0 > 0.6, whatever axis 1 says.
  std::mt19937_64 engine(3);
  const int n = 40;
  Points obs = Points::zeros(n, 2, 0);
  std::vector<bool> ok;
  for (int i = 0; i < n; ++i) {
    obs.ordinal(i, 0) = (i % 10) / 9.0;
    obs.ordinal(i, 1) = static_cast<double>(engine() % 1000) / 999.0;
    ok.push_back(obs.ordinal(i, 0) <= 0.6);
  }
  const MixedKernel k = FeasibilityModel::fit_kernel(obs, ok, MixedKernel::defaults(2, 0), engine);
  CHECK(k.length_scales[1] > 3.0 * k.length_scales[0]);
  Points at = Points::zeros(2, 2, 0);
  at.ordinal(0, 0) = 0.3, at.ordinal(0, 1) = 0.5;
  at.ordinal(1, 0) = 0.9, at.ordinal(1, 1) = 0.5;
  const auto p = FeasibilityModel(k, obs, ok).probability(at);
  CHECK(p[0] > 0.8);
  CHECK(p[1] < 0.2);
}
