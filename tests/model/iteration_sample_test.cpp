#include <memtune/model/iteration_sample.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune::model;

TEST_CASE("short loops are replayed whole, long ones as four runs whose weight restores the count") {
  const IterationSample none = sample_iterations(0);
  CHECK(none.runs.empty());
  CHECK(none.replayed() == 0);

  const IterationSample whole = sample_iterations(replay_iteration_cap);
  REQUIRE(whole.runs.size() == 1);
  CHECK(whole.runs[0].first == 0);
  CHECK(whole.runs[0].count == replay_iteration_cap);
  CHECK(whole.weight == 1.0);

  const std::int64_t n = 1'000'000'000; // a mat-vec row of 1G columns
  const IterationSample s = sample_iterations(n);
  REQUIRE(s.runs.size() == 4);
  CHECK(s.replayed() == replay_iteration_cap);
  CHECK(s.weight * static_cast<double>(s.replayed()) == doctest::Approx(static_cast<double>(n)));
  CHECK(s.runs.front().first == 0);                               // the loop's start
  CHECK(s.runs.back().first + s.runs.back().count == n);          // and its end (guards, tails)
  for (std::size_t i = 1; i < s.runs.size(); ++i) CHECK(s.runs[i].first >= s.runs[i - 1].first + s.runs[i - 1].count);
}

TEST_CASE("sampling refuses a negative count and a cap too small for its runs") {
  CHECK_THROWS_AS(sample_iterations(-1), std::invalid_argument);
  CHECK_THROWS_AS(sample_iterations(100, 3), std::invalid_argument);
}
