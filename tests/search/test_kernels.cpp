#include <memtune/search/kernels.hpp>

#include <Eigen/Eigenvalues>
#include <doctest/doctest.h>

#include <cmath>

using namespace memtune::search;

TEST_CASE("matern 5/2 is 1 at zero, decreasing, and matches its closed form") {
  CHECK(matern52(0.0) == 1.0);
  CHECK(matern52(1.0) == doctest::Approx((1 + std::sqrt(5.0) + 5.0 / 3.0) * std::exp(-std::sqrt(5.0))));
  CHECK(matern52(0.5) > matern52(1.0));
  CHECK(matern52(10.0) < 1e-6);
}

TEST_CASE("the mixed kernel multiplies distance and mismatch factors") {
  MixedKernel k = MixedKernel::defaults(1, 1);
  k.length_scales[0] = 0.5;
  k.mismatch_weights[0] = 2.0;
  Points p = Points::zeros(3, 1, 1);
  p.ordinal(1, 0) = 0.5;
  p.categorical(2, 0) = 1;
  const auto c = k.correlation(p, p);
  CHECK(c(0, 0) == 1.0);
  CHECK(c(0, 1) == doctest::Approx(matern52(1.0)));
  CHECK(c(0, 2) == doctest::Approx(std::exp(-2.0)));
  CHECK(c(1, 2) == doctest::Approx(matern52(1.0) * std::exp(-2.0)));
  CHECK(c(1, 0) == c(0, 1));
  // Positive semi-definite: smallest eigenvalue not negative.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(c);
  CHECK(eig.eigenvalues().minCoeff() > -1e-12);
}

TEST_CASE("log-parameters round-trip, and a wrong size is rejected") {
  MixedKernel k = MixedKernel::defaults(2, 1);
  k.length_scales << 0.3, 2.0;
  k.mismatch_weights << 0.7;
  k.signal_variance = 1.5;
  k.noise_variance = 1e-4;
  const MixedKernel back = MixedKernel::from_log_params(k.to_log_params(), 2, 1);
  CHECK(back.length_scales[1] == doctest::Approx(2.0));
  CHECK(back.mismatch_weights[0] == doctest::Approx(0.7));
  CHECK(back.signal_variance == doctest::Approx(1.5));
  CHECK(back.noise_variance == doctest::Approx(1e-4));
  CHECK_THROWS_AS((void)MixedKernel::from_log_params(k.to_log_params(), 1, 1), std::invalid_argument);
  CHECK_THROWS_AS((void)k.correlation(Points::zeros(1, 1, 1), Points::zeros(1, 1, 1)), std::invalid_argument);
}
