// The watchdog's automatic limit (memtune/isolate/isolation_options.hpp).
#include <memtune/isolate/isolation_options.hpp>

#include <doctest/doctest.h>

using namespace memtune;

TEST_CASE("a candidate's limit: the floor, plus the yardstick's launches times the multiple, capped") {
  MeasureOptions m; // 2 warm-up, 200 samples at most: 204 launches with the two verified ones
  WatchdogYardsticks y;
  CHECK(candidate_time_limit(y, m) == doctest::Approx(120.0)); // nothing known: the cap
  y.copy_s = 40e-6;
  CHECK(candidate_time_limit(y, m) == doctest::Approx(3.0 + 20 * 40e-6 * 204));
  y.best_s = 49e-6;
  y.reference_s = 60e-6;
  CHECK(candidate_time_limit(y, m) == doctest::Approx(3.0 + 20 * 40e-6 * 204)); // the smallest yardstick
  y.copy_s.reset();
  CHECK(candidate_time_limit(y, m) == doctest::Approx(3.0 + 20 * 49e-6 * 204));
  y.best_s = 1.0; // a kernel of a second per launch
  y.reference_s.reset();
  CHECK(candidate_time_limit(y, m) == doctest::Approx(120.0));
  y.host_work_s = 10.0; // a callback's expected values may be computed inside a candidate
  CHECK(candidate_time_limit(y, m) == doctest::Approx(130.0));
  WatchdogLimits tight{10.0, 0.5, 2.0};
  y.best_s = 1e-4;
  y.host_work_s = 0;
  CHECK(candidate_time_limit(y, m, tight) == doctest::Approx(0.5 + 10 * 1e-4 * 204));
}
