#include <memtune/search/gp.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune::search;

namespace {

Points line(const std::vector<double>& xs) {
  Points p = Points::zeros(static_cast<Eigen::Index>(xs.size()), 1, 0);
  for (std::size_t i = 0; i < xs.size(); ++i) p.ordinal(static_cast<Eigen::Index>(i), 0) = xs[i];
  return p;
}

MixedKernel kernel_1d(double length_scale, double noise) {
  MixedKernel k = MixedKernel::defaults(1, 0);
  k.length_scales[0] = length_scale;
  k.noise_variance = noise;
  return k;
}

} // namespace

TEST_CASE("a GP interpolates a smooth 1-D function") {
  std::vector<double> xs, mids;
  Eigen::VectorXd y(12);
  for (int i = 0; i < 12; ++i) {
    xs.push_back(i / 11.0);
    y[i] = std::sin(6.0 * xs.back());
  }
  for (int i = 0; i < 11; ++i) mids.push_back((i + 0.5) / 11.0);
  const GaussianProcess gp(kernel_1d(0.3, 1e-6), line(xs), y);
  CHECK(gp.jitter() == 0.0);
  const auto at = gp.predict(line(mids));
  for (std::size_t i = 0; i < mids.size(); ++i) CHECK(std::abs(at[i].mean - std::sin(6.0 * mids[i])) < 0.03);
}

TEST_CASE("posterior variance shrinks at observed points and grows away from them") {
  Eigen::VectorXd y(3);
  y << 0.1, -0.4, 0.3;
  const GaussianProcess gp(kernel_1d(0.2, 1e-6), line({0.0, 0.1, 0.2}), y);
  const auto at = gp.predict(line({0.1, 0.5, 1.0}));
  CHECK(at[0].variance < 1e-4);
  CHECK(at[0].mean == doctest::Approx(-0.4).epsilon(1e-3));
  CHECK(at[1].variance > 0.5);
  CHECK(at[2].variance > at[1].variance);
  CHECK(at[2].variance <= 1.0 + 1e-12); // never above the prior
  CHECK(std::abs(at[2].mean) < 0.02);   // far away the zero prior mean returns
}

TEST_CASE("duplicate and near-duplicate points with no noise factorise with jitter") {
  Eigen::VectorXd y(4);
  y << 1.0, 1.0 + 1e-9, 0.5, -0.2;
  const GaussianProcess exact(kernel_1d(0.5, 0.0), line({0.5, 0.5, 0.2, 0.9}), y);
  CHECK(exact.jitter() > 0.0);
  CHECK(exact.predict(line({0.5}))[0].mean == doctest::Approx(1.0).epsilon(1e-3));
  const GaussianProcess gp(kernel_1d(0.5, 0.0), line({0.5, 0.5 + 1e-12, 0.2, 0.9}), y);
  CHECK(std::isfinite(gp.log_marginal_likelihood()));
  const auto at = gp.predict(line({0.5, 0.7}));
  CHECK(at[0].mean == doctest::Approx(1.0).epsilon(1e-3));
  CHECK(std::isfinite(at[1].mean));
  CHECK(at[1].variance >= 0.0);
}

TEST_CASE("the marginal likelihood prefers a plausible length scale") {
  std::vector<double> xs;
  Eigen::VectorXd y(15);
  for (int i = 0; i < 15; ++i) {
    xs.push_back(i / 14.0);
    y[i] = std::sin(6.0 * xs.back());
  }
  const double good = GaussianProcess(kernel_1d(0.3, 1e-4), line(xs), y).log_marginal_likelihood();
  const double too_short = GaussianProcess(kernel_1d(0.01, 1e-4), line(xs), y).log_marginal_likelihood();
  const double too_long = GaussianProcess(kernel_1d(20.0, 1e-4), line(xs), y).log_marginal_likelihood();
  CHECK(good > too_short);
  CHECK(good > too_long);
}

TEST_CASE("bad inputs are rejected") {
  Eigen::VectorXd y(2);
  y << 1.0, 2.0;
  CHECK_THROWS_AS(GaussianProcess(kernel_1d(0.3, 1e-4), line({0.0}), y), std::invalid_argument);
  y[1] = std::nan("");
  CHECK_THROWS_AS(GaussianProcess(kernel_1d(0.3, 1e-4), line({0.0, 1.0}), y), std::invalid_argument);
}
