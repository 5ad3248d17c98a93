// The search loop (tune/include/memtune/tune/search_loop.hpp) with an objective: the
// strategy and the stop rules see the run's objective, not the time, so a
// run for energy stops on energy's patience and ranks by joules.
#include <memtune/tune/search_loop.hpp>

#include "../support/asset_description.hpp"
#include "../support/catalogue_target.hpp"

#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <filesystem>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

// Each candidate faster than the one before and hungrier: time improves at
// every step, energy never after the first.
TuningResult run(Objective objective) {
  const Target& target = catalogue_target("h100-sxm");
  const KernelDescription& d = asset_description("journal_space.json");
  const Problem problem = d.complete({});
  TuneOptions o;
  o.strategy = "grid";
  o.patience = 3;
  o.budget = 12;
  o.objective = objective;
  o.cache_folder = fs::temp_directory_path() / "memtune-search-loop-test-cache";
  o.compile_threads = 2;
  TuningResult result = new_tuning_result(d, problem, target, o, /*measured=*/true);
  CompileCache cache(*o.cache_folder);
  CompilePool pool(&cache, o.compile_threads);
  int step = 0;
  run_search_loop(d, problem, target, target.compute_capability(), o, pool, result, [&](Pending& p) {
    Evaluation e;
    e.config = p.config;
    e.block_threads = 128;
    e.resources.registers = 16;
    Timing t;
    t.median_s = t.min_s = t.max_s = 1e-3 / (1.0 + step);
    t.samples = 10;
    e.timing = t;
    EnergyMeasurement m;
    m.joules_per_launch = m.min_j = m.max_j = 0.01 * (1.0 + step);
    m.repeats = 5;
    e.energy = m;
    ++step;
    return e;
  });
  return result;
}

} // namespace

TEST_CASE("the loop minimises the run's objective: energy's patience stops where time's would not") {
  const TuningResult by_time = run(Objective::time);
  CHECK(by_time.evaluations.size() == 12); // a new best every time: only the budget stops it
  REQUIRE(by_time.best());
  CHECK(by_time.best() == &by_time.evaluations.back());

  const TuningResult by_energy = run(Objective::energy);
  // The first is the energy-best; three more without a new best and patience stops it.
  CHECK(by_energy.evaluations.size() == 4);
  CHECK(by_energy.stop_reason.find("no improvement in 3") != std::string::npos);
  CHECK(by_energy.objective == Objective::energy);
  REQUIRE(by_energy.best());
  CHECK(by_energy.best() == &by_energy.evaluations.front());
}
