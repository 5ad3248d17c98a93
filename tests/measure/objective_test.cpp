// The objective (measure/include/memtune/measure/objective.hpp): the value minimised
// per candidate, the ranking and the rationale by it, the refusal when the
// energy measurements cannot separate the pick from the fastest, the
// trade-off words, and the energy columns and facts of the printed result.
#include "../support/synthetic_result.hpp"

#include "../thrown_message.hpp"

#include <memtune/measure/objective.hpp>
#include <memtune/output/printer.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/output/tuning_document.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <sstream>

using namespace memtune;

namespace {

EnergyMeasurement energy(double joules, double low, double high) {
  EnergyMeasurement m;
  m.joules_per_launch = joules;
  m.min_j = low;
  m.max_j = high;
  m.spread = (high - low) / joules / 2;
  m.mean_watts = 400;
  m.idle_watts = 70;
  m.repeats = 5;
  m.launches_per_batch = 25000;
  m.batch_seconds = 0.1;
  m.resolution_j = 0.001;
  m.period_s = 0.02;
  return m;
}

// The synthetic result (4.0 us and 3.2 us, one failure) with energies: the
// slower one takes fewer joules, clearly apart or within the spread.
TuningResult with_energy(Objective objective, bool separable) {
  TuningResult r = testing::synthetic_result();
  r.objective = objective;
  r.energy_measured = true;
  r.evaluations[0].energy = separable ? energy(1.00e-3, 0.98e-3, 1.02e-3) : energy(1.00e-3, 0.90e-3, 1.30e-3);
  r.evaluations[1].energy = energy(1.20e-3, 1.18e-3, 1.22e-3);
  if (auto why = energy_unresolved(r.evaluations, r.objective)) r.objective_refused = *why;
  return r;
}

std::string printed(const TuningResult& r, output::Format f) {
  std::ostringstream out;
  output::print(out, to_document(r, 10), f);
  return out.str();
}

} // namespace

TEST_CASE("objective names round-trip and an unknown one names the choices") {
  for (Objective o : {Objective::time, Objective::energy, Objective::edp})
    CHECK(objective_from_string(to_string(o)) == o);
  CHECK(thrown_message<std::invalid_argument>([] { (void)objective_from_string("watts"); }) ==
        "unknown objective 'watts' (time, energy or edp)");
  CHECK(std::string(objective_unit(Objective::edp)) == "J*s");
}

TEST_CASE("the value minimised: seconds, joules per launch, or their product; none without what it needs") {
  TuningResult r = with_energy(Objective::energy, true);
  const Evaluation& slow = r.evaluations[0];
  CHECK(*objective_value(slow, Objective::time) == doctest::Approx(4.0e-6));
  CHECK(*objective_value(slow, Objective::energy) == doctest::Approx(1.0e-3));
  CHECK(*objective_value(slow, Objective::edp) == doctest::Approx(1.0e-3 * 4.0e-6));
  CHECK_FALSE(objective_value(r.evaluations[2], Objective::time)); // the compile failure
  Evaluation no_energy = slow;
  no_energy.energy.reset();
  CHECK_FALSE(objective_value(no_energy, Objective::energy));
  CHECK(objective_value(no_energy, Objective::time));
}

TEST_CASE("ranked by energy, the frugal candidate wins; the rationale says what it costs against the fastest") {
  const TuningResult r = with_energy(Objective::energy, true);
  CHECK(r.objective_refused.empty());
  REQUIRE(r.best());
  CHECK(r.best() == &r.evaluations[0]);
  CHECK(r.fastest() == &r.evaluations[1]);
  const std::string why = rationale(r);
  // 4.0 us against 3.2 us: 25 % slower; 1.0 mJ against 1.2 mJ: 16.7 % fewer.
  CHECK(why.find("Picked for energy: 25.0 % slower, 16.7 % fewer joules per launch than the fastest") != std::string::npos);
  CHECK(why.find("1 mJ per launch") != std::string::npos);
  CHECK(why.find("costs 20.0% more joules per launch") != std::string::npos);
  CHECK(tradeoff(r.evaluations[1], r.evaluations[1]).starts_with("as fast as, the same joules per launch"));

  // By time, the same run ranks the fast one first and says nothing of a trade.
  TuningResult by_time = with_energy(Objective::time, true);
  CHECK(by_time.best() == &by_time.evaluations[1]);
  CHECK(rationale(by_time).find("Picked for") == std::string::npos);
}

TEST_CASE("edp weighs both: the fast candidate's product is smaller here") {
  const TuningResult r = with_energy(Objective::edp, true);
  // 1.0 mJ x 4.0 us = 4.0e-9 against 1.2 mJ x 3.2 us = 3.84e-9.
  REQUIRE(r.best());
  CHECK(r.best() == &r.evaluations[1]);
  CHECK(r.objective_refused.empty()); // the pick is the fastest: nothing to separate
  CHECK(rationale(r).find("The edp-best is also the fastest.") != std::string::npos);
}

TEST_CASE("energies within their batches' spread refuse the energy objective, and the ranking falls back to time") {
  const TuningResult r = with_energy(Objective::energy, false);
  CHECK(r.objective_refused.find("cannot separate") != std::string::npos);
  CHECK(r.objective_refused.find("refused for this run") != std::string::npos);
  CHECK(r.ranked_by() == Objective::time);
  CHECK(r.best() == &r.evaluations[1]);
  const std::string table = printed(r, output::Format::table);
  CHECK(table.find("REFUSED: ") != std::string::npos);
}

TEST_CASE("no energy measured at all refuses the objective with the meter's reason") {
  TuningResult r = testing::synthetic_result();
  r.evaluations[0].energy_error = "NVML (libnvidia-ml.so.1) could not be loaded";
  const auto why = energy_unresolved(r.evaluations, Objective::edp);
  REQUIRE(why);
  CHECK(why->find("no candidate's energy was measured (NVML (libnvidia-ml.so.1) could not be loaded)") !=
        std::string::npos);
  CHECK_FALSE(energy_unresolved(r.evaluations, Objective::time)); // time never needs it
}

TEST_CASE("the printers show joules per launch, their spread and watts, and how they were measured") {
  const TuningResult r = with_energy(Objective::energy, true);
  const std::string table = printed(r, output::Format::table);
  CHECK(table.find(" mJ ") != std::string::npos);
  CHECK(table.find("+-%J") != std::string::npos);
  CHECK(table.find("objective: energy (joules per launch)") != std::string::npos);
  CHECK(table.find("energy: NVML total-energy counter, step 1 mJ every 20.0 ms (measured); 5 batches") !=
        std::string::npos);
  CHECK(table.find("idle 70 W measured just before and subtracted outside the batches") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(printed(r, output::Format::json));
  CHECK(j.at("objective") == "energy");
  CHECK(j.at("energy_measured") == true);
  CHECK(j.at("best").at("joules_per_launch").get<double>() == doctest::Approx(1.0e-3));
  CHECK(j.at("best").at("energy_repeats") == 5);
  CHECK(j.at("trials").at(0).at("mean_watts").get<double>() == doctest::Approx(400));
  // A run without energy prints none of it (and its JSON has no objective key: time).
  const std::string plain = printed(testing::synthetic_result(), output::Format::table);
  CHECK(plain.find("+-%J") == std::string::npos);
  CHECK(plain.find("energy") == std::string::npos);
}

TEST_CASE("a profile entry keeps the objective and the pick's joules, and refuses an unknown objective") {
  const TuningResult r = with_energy(Objective::energy, true);
  const ProfileEntry e = make_profile_entry(r);
  CHECK(e.objective == "energy");
  REQUIRE(e.joules_per_launch);
  CHECK(*e.joules_per_launch == doctest::Approx(1.0e-3));
  const ProfileEntry back = ProfileEntry::from_json(e.to_json());
  CHECK(back.objective == "energy");
  CHECK(*back.mean_watts == doctest::Approx(400));
  nlohmann::json bad = e.to_json();
  bad["objective"] = "speed";
  CHECK(thrown_message<InputError>([&] { (void)ProfileEntry::from_json(bad); }).find("unknown objective 'speed'") !=
        std::string::npos);
  bad["objective"] = "energy";
  bad["joules_per_launch"] = -1.0;
  CHECK(thrown_message<InputError>([&] { (void)ProfileEntry::from_json(bad); }) != "nothing thrown");
}
