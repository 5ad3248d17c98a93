// The analytical model as bayes's prior mean (model_prior.hpp): one finite
// log-time per valid config, equal to the no-register estimate, and the
// slowest prediction where the model fits no block.
#include "tune/src/bounded_grid.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/tune/model_prior.hpp>
#include <memtune/search/bayes.hpp>
#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <string>

using namespace memtune;

TEST_CASE("model_prior is the log of model_estimate's time on every valid config") {
  const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  const Target& h100 = catalog.find("h100-sxm");
  const KernelDescription& filter = templates::filter_description();
  const Problem problem = complete_problem(filter.problem, {{"n", 1 << 24}, {"taps", 21}});
  const search::Space space = filter.space(problem, h100);
  const auto prior = model_prior(filter, problem, h100, space);
  double slowest = -1e300;
  std::size_t predicted = 0;
  for (const search::Config& c : space.enumerate()) {
    const Evaluation e = model_estimate(filter, problem, h100, c, filter.bytes_moved(problem));
    CHECK(std::isfinite(prior(c)));
    if (e.timing) {
      CHECK(prior(c) == doctest::Approx(std::log(e.timing->median_s)));
      slowest = std::max(slowest, prior(c));
      ++predicted;
    }
  }
  CHECK(predicted > 0);
  for (const search::Config& c : space.enumerate())
    if (!model_estimate(filter, problem, h100, c, filter.bytes_moved(problem)).timing) CHECK(prior(c) == slowest);
}

namespace {

// This process's resident memory now (Linux), in MiB; 0 where /proc is absent.
double resident_mib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0.0;
}

} // namespace

TEST_CASE("above 2^22 configurations the model prior predicts on demand: bayes with it walks a 10^7+ space") {
  // The test transpose with six macros it never reads: 24 x 10^6 configurations.
  const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  const Target& h100 = catalog.find("h100-sxm");
  const KernelDescription d = load_description(MEMTUNE_TEST_ASSETS_DIR "/descriptions/huge_transpose.json");
  const Problem problem = d.complete({{"rows", 1024}, {"cols", 1024}});
  const search::Space space = d.space(problem, h100);
  REQUIRE(space.cross_product_size() > 10'000'000);
  CHECK_THROWS_AS((void)space.enumerate(), std::exception); // listing it is refused

  const double before = resident_mib();
  std::size_t asked = 0;
  const auto prior = model_prior(d, problem, h100, space);
  search::BayesOptions options;
  options.candidate_pool = 256; // each proposal scores this many fresh samples: one prediction each
  options.prior_mean = [&](const search::Config& c) {
    ++asked;
    return prior(c);
  };
  std::mt19937_64 engine(7);
  search::BayesianSearch bayes(space, engine, options);
  // Modeled: the model's own time is the objective, so the prior's argmin is the optimum.
  const std::uint64_t bytes = d.bytes_moved(problem);
  std::set<search::Config> proposed;
  double best = 1e300, first = 0;
  for (int i = 0; i < 16; ++i) {
    const auto c = bayes.next();
    REQUIRE(c);
    CHECK(space.is_valid(*c));
    CHECK(proposed.insert(*c).second);
    const Evaluation e = model_estimate(d, problem, h100, *c, bytes);
    search::Trial t;
    t.config = *c;
    if (e.timing) t.time_s = e.timing->median_s;
    else t.status = "not_modeled";
    if (i == 0 && t.time_s) first = *t.time_s;
    if (t.time_s) best = std::min(best, *t.time_s);
    bayes.observe(t);
  }
  const double grown = resident_mib() - before;
  MESSAGE("model prior on " << space.cross_product_size() << " configurations: " << asked
                            << " predictions for 16 proposals, best " << best * 1e6 << " us (first " << first * 1e6
                            << " us), resident memory +" << grown << " MiB");
  CHECK(asked < 100'000);   // the candidates scored, never the space
  CHECK(grown < 500.0);     // the bound asked for; listing would take gigabytes
  CHECK(best <= first);
}
