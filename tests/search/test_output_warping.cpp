#include <memtune/search/output_warping.hpp>

#include <memtune/search/acquisition.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune::search;

TEST_CASE("normal_quantile inverts normal_cdf") {
  CHECK(normal_quantile(0.5) == doctest::Approx(0.0));
  CHECK(normal_quantile(0.975) == doctest::Approx(1.959963985).epsilon(1e-8));
  for (double z : {-5.0, -1.3, 0.2, 2.7}) CHECK(normal_quantile(normal_cdf(z)) == doctest::Approx(z).epsilon(1e-9));
  CHECK_THROWS_AS((void)normal_quantile(0.0), std::invalid_argument);
  CHECK_THROWS_AS((void)normal_quantile(1.0), std::invalid_argument);
}

TEST_CASE("the copula keeps the order, spreads ranks evenly and ignores the scale") {
  Eigen::VectorXd v(3);
  v << 3.0, 1.0, 200.0;
  const Eigen::VectorXd w = gaussian_copula(v);
  CHECK(w[1] == doctest::Approx(normal_quantile(1.0 / 6.0)));
  CHECK(w[0] == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(w[2] == doctest::Approx(-w[1]));
  // A huge outlier does not move the others.
  v[2] = 2.0e9;
  CHECK(gaussian_copula(v).isApprox(w));
}

TEST_CASE("ties share their average rank") {
  Eigen::VectorXd v(4);
  v << 1.0, 2.0, 2.0, 3.0;
  const Eigen::VectorXd w = gaussian_copula(v);
  CHECK(w[1] == w[2]);
  CHECK(w[1] == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(w[0] < w[1]);
  CHECK(w[3] > w[2]);
  CHECK(gaussian_copula(Eigen::VectorXd(0)).size() == 0);
}
