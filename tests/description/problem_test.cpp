#include <memtune/description/problem.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;

TEST_CASE("problems get defaults, and bad parameters are named") {
  const std::vector<ProblemParameter> params{{"n", 100, 1, 1000, "length", true}, {"taps", 21, 1, 255, "taps", false}};
  const Problem p = complete_problem(params, {{"n", 7}});
  CHECK(p.at("n") == 7);
  CHECK(p.at("taps") == 21);
  CHECK_THROWS_WITH_AS(complete_problem(params, {{"n", 0}}), doctest::Contains("'n' = 0 is out of range [1, 1000]"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(complete_problem(params, {{"m", 3}}), doctest::Contains("unknown problem parameter 'm' (known: n, taps)"),
                       std::invalid_argument);
  CHECK(format_problem(p) == "n=7 taps=21");
}
