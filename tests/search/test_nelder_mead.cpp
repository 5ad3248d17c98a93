#include <memtune/search/nelder_mead.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune::search;

TEST_CASE("nelder-mead finds the minimum of a curved valley") {
  auto rosenbrock = [](const Eigen::VectorXd& x) {
    return 100.0 * std::pow(x[1] - x[0] * x[0], 2) + std::pow(1.0 - x[0], 2);
  };
  const auto r = nelder_mead_minimize(rosenbrock, Eigen::Vector2d(-1.2, 1.0), Eigen::Vector2d(-5, -5),
                                      Eigen::Vector2d(5, 5), 0.5, 2000, 1e-12);
  CHECK(r.x[0] == doctest::Approx(1.0).epsilon(1e-3));
  CHECK(r.x[1] == doctest::Approx(1.0).epsilon(2e-3));
  CHECK(r.evaluations <= 2000 + 3); // a final shrink may finish its vertices
}

TEST_CASE("nelder-mead stays in the box and lands on the bound when the minimum is outside") {
  auto bowl = [](const Eigen::VectorXd& x) { return std::pow(x[0] - 5.0, 2) + std::pow(x[1] + 1.0, 2); };
  const auto r = nelder_mead_minimize(bowl, Eigen::Vector2d(0, 0), Eigen::Vector2d(-2, -2), Eigen::Vector2d(2, 2),
                                      1.0, 500);
  CHECK(r.x[0] == doctest::Approx(2.0).epsilon(1e-4));
  CHECK(r.x[1] == doctest::Approx(-1.0).epsilon(1e-3));
}

TEST_CASE("nelder-mead treats NaN as worst and rejects mismatched bounds") {
  auto holey = [](const Eigen::VectorXd& x) { return x[0] < 0 ? std::nan("") : (x[0] - 1) * (x[0] - 1); };
  const auto r = nelder_mead_minimize(holey, Eigen::VectorXd::Constant(1, 3.0), Eigen::VectorXd::Constant(1, -4.0),
                                      Eigen::VectorXd::Constant(1, 4.0), 1.0, 300);
  CHECK(r.x[0] == doctest::Approx(1.0).epsilon(1e-3));
  CHECK_THROWS_AS((void)nelder_mead_minimize(holey, Eigen::VectorXd::Zero(1), Eigen::VectorXd::Zero(2),
                                             Eigen::VectorXd::Ones(2), 1.0, 10),
                  std::invalid_argument);
}
