#include <memtune/search/acquisition.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <numbers>

using namespace memtune::search;

TEST_CASE("normal helpers") {
  CHECK(normal_cdf(0.0) == doctest::Approx(0.5));
  CHECK(normal_cdf(1.959963985) == doctest::Approx(0.975).epsilon(1e-6));
  CHECK(normal_cdf(-40.0) >= 0.0);
  CHECK(normal_pdf(0.0) == doctest::Approx(1.0 / std::sqrt(2.0 * std::numbers::pi)));
}

TEST_CASE("with zero variance EI is the plain improvement, or zero") {
  CHECK(expected_improvement(1.0, 0.0, 3.0) == doctest::Approx(2.0));
  CHECK(expected_improvement(3.5, 0.0, 3.0) == 0.0);
  CHECK(expected_improvement(1.0, 0.0, 3.0, 0.5) == doctest::Approx(1.5));
}

TEST_CASE("at equal mean EI grows with the variance, above and below the best") {
    // Means within a few sd of the best: further out EI saturates (or vanishes)
  // to within rounding.
  for (double mean : {-0.5, 0.0, 0.5, 1.0}) {
    double previous = expected_improvement(mean, 0.0, 0.0);
    for (double sd : {0.1, 0.3, 1.0, 3.0}) {
      const double ei = expected_improvement(mean, sd, 0.0);
      CHECK(ei > previous);
      previous = ei;
    }
  }
}

TEST_CASE("EI matches its closed form, and lower means are better") {
  // mean = best: EI = sd * phi(0).
  CHECK(expected_improvement(0.0, 2.0, 0.0) == doctest::Approx(2.0 / std::sqrt(2.0 * std::numbers::pi)));
  CHECK(expected_improvement(-0.5, 1.0, 0.0) > expected_improvement(0.5, 1.0, 0.0));
}

TEST_CASE("probability of improvement and confidence bound") {
  CHECK(probability_of_improvement(0.0, 1.0, 0.0) == doctest::Approx(0.5));
  CHECK(probability_of_improvement(1.0, 0.0, 2.0) == 1.0);
  CHECK(probability_of_improvement(2.0, 0.0, 2.0) == 0.0);
  CHECK(probability_of_improvement(-1.0, 1.0, 0.0) > 0.8);
  CHECK(lower_confidence_bound(1.0, 0.5, 2.0) == doctest::Approx(0.0));
}
