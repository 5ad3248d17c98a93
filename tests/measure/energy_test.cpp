// The energy arithmetic (measure/include/memtune/measure/energy.hpp): the counter's
// difference across a wrap and a reset, its resolution and update period
// from polled samples, the idle baseline edge to edge, the batch length, the
// batch's joules with the idle time outside it subtracted, power integrated
// where there is no counter, and the summary of repeated batches.
#include <memtune/measure/energy.hpp>

#include "../thrown_message.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

using namespace memtune;

TEST_CASE("the counter's difference counts forwards across a wrap and refuses a reset") {
  CHECK(counter_delta_mj(1000, 1750, 0.01) == 750);
  // 2^64 - 100 to 400: 500 mJ forwards, not a negative step.
  CHECK(counter_delta_mj(UINT64_MAX - 99, 400, 0.01) == 500);
  // A reset (the driver reloaded): from 5e9 mJ back to 20 is a step of ~2^64.
  const std::string why = thrown_message<std::runtime_error>([] { (void)counter_delta_mj(5'000'000'000ULL, 20, 0.1); });
  CHECK(why.find("reset") != std::string::npos);
  // More than any board draws (5 kW over 10 ms is 50 J): refused too.
  CHECK(thrown_message<std::runtime_error>([] { (void)counter_delta_mj(0, 60'000'000, 0.01); }) != "nothing thrown");
  CHECK(counter_delta_mj(0, 40'000, 0.01) == 40'000); // 4 kW for 10 ms: a big board, believed
}

TEST_CASE("polling finds the counter's update period and smallest step") {
  // Updated every 20 ms by 1.4 J or 1.5 J (70-75 W), polled every 1 ms.
  std::vector<CounterSample> s;
  std::uint64_t mj = 5'000'000;
  for (int i = 0; i <= 100; ++i) {
    if (i > 0 && i % 20 == 3) mj += (i / 20) % 2 ? 1500 : 1400;
    s.push_back({1e-3 * i, mj});
  }
  const auto r = counter_resolution(s);
  REQUIRE(r);
  CHECK(r->changes == 5);
  CHECK(r->period_s == doctest::Approx(0.020));
  CHECK(r->quantum_j == doctest::Approx(1.4));
  // Edge to edge (the first change at 3 ms, the last at 83 ms): 5.8 J in 80 ms.
  const auto idle = idle_watts(s);
  REQUIRE(idle);
  CHECK(*idle == doctest::Approx((1500 + 1400 + 1500 + 1400) / 1000.0 / 0.080));
}

TEST_CASE("a counter that changed fewer than twice has no period and no baseline") {
  std::vector<CounterSample> s{{0.0, 10}, {0.001, 10}, {0.002, 12}, {0.003, 12}};
  CHECK_FALSE(counter_resolution(s));
  CHECK_FALSE(idle_watts(s));
  CHECK_FALSE(counter_resolution({}));
}

TEST_CASE("a batch lasts several update periods and a hundred steps, within its cap") {
  EnergyOptions o;
  o.min_periods = 5;
  o.min_quanta = 100;
  o.max_batch_seconds = 3.0;
  // 20 ms period, 1 mJ unit, 70 W idle: 100 units take 1.4 ms, so the periods decide: 100 ms.
  // (Within one launch of the exact quotient: the bounds are decimal fractions.)
  const auto near = [](int launches, int expected) { return launches >= expected && launches <= expected + 1; };
  CHECK(near(batch_launches({0.020, 1.4, 5}, 50e-6, 70.0, o), 2000));
  // A coarse 1 J unit: 100 J at 70 W is 1.43 s, longer than five periods.
  CHECK(near(batch_launches({0.020, 1.4, 5, 1.0}, 50e-6, 70.0, o), 28572));
  // Capped: a 1 s period would ask for 5 s.
  CHECK(near(batch_launches({1.0, 0.001, 5}, 1e-3, 70.0, o), 3000));
  // A launch longer than the whole batch: one launch.
  CHECK(batch_launches({0.020, 0.001, 5}, 0.5, 70.0, o) == 1);
  CHECK(thrown_message<std::invalid_argument>([&] { (void)batch_launches({0.02, 0.001, 5}, 0.0, 70.0, o); }) !=
        "nothing thrown");
}

TEST_CASE("a batch's joules subtract the idle baseline only outside the batch") {
  // Edges 130 ms apart around a 100 ms batch: 30 ms idle at 70 W (2.1 J) are not the kernel's.
  CHECK(batch_joules(47'100, 0.130, 0.100, 70.0) == doctest::Approx(45.0));
  // Edges inside the batch time (clock skew): nothing subtracted, never added.
  CHECK(batch_joules(45'000, 0.099, 0.100, 70.0) == doctest::Approx(45.0));
}

TEST_CASE("power readings integrate to joules over a window, held flat at the ends") {
  const std::vector<PowerSample> s{{0.0, 100.0}, {1.0, 300.0}, {2.0, 300.0}};
  CHECK(integrate_power(s, 0.0, 2.0) == doctest::Approx(200.0 + 300.0));
  CHECK(integrate_power(s, 0.5, 1.0) == doctest::Approx(0.5 * (200.0 + 300.0) * 0.5));
  CHECK(integrate_power(s, -1.0, 0.0) == doctest::Approx(100.0)); // before the first sample: its value
  CHECK(integrate_power(s, 2.0, 3.0) == doctest::Approx(300.0));  // after the last: its value
  CHECK(thrown_message<std::invalid_argument>([] { (void)integrate_power({}, 0.0, 1.0); }) != "nothing thrown");
  CHECK(thrown_message<std::invalid_argument>([&] { (void)integrate_power(s, 1.0, 0.5); }) != "nothing thrown");
}

TEST_CASE("repeated batches summarise as the times do: median, extremes, IQR over median") {
  const EnergyMeasurement m = summarize_energy({0.0100, 0.0104, 0.0098, 0.0101, 0.0200}, {0.1, 0.1, 0.1, 0.1, 0.2},
                                               2000, 72.0, {0.02, 0.001, 5}, EnergySource::counter);
  CHECK(m.joules_per_launch == doctest::Approx(0.0101));
  CHECK(m.min_j == doctest::Approx(0.0098));
  CHECK(m.max_j == doctest::Approx(0.0200));
  CHECK(m.repeats == 5);
  CHECK(m.spread == doctest::Approx((0.0104 - 0.0100) / 0.0101));
  CHECK(m.batch_seconds == doctest::Approx(0.1));
  CHECK(m.mean_watts == doctest::Approx(0.0101 * 2000 / 0.1));
  CHECK(m.idle_watts == 72.0);
  CHECK(m.period_s == 0.02);
  // Above idle: 10.1 mJ less 72 W over a 50 us launch.
  CHECK(m.dynamic_joules(50e-6) == doctest::Approx(0.0101 - 72.0 * 50e-6));
  CHECK(thrown_message<std::invalid_argument>([] {
          (void)summarize_energy({}, {}, 1, 0, {}, EnergySource::counter);
        }) != "nothing thrown");
}

TEST_CASE("the watchdog's allowance covers every batch and edge of a candidate's energy") {
  EnergyOptions o;
  CHECK(energy_time_allowance(o) == 0.0); // not asked for: nothing added
  o.enabled = true;
  o.repeats = 5;
  o.max_batch_seconds = 3.0;
  CHECK(energy_time_allowance(o) == doctest::Approx(4 * kEdgeTimeout + 5 * (2 * kEdgeTimeout + 6.0)));
}
