// The analytical model as bayes's prior mean (model_prior.hpp): one finite
// log-time per valid config, equal to the bounded grid's no-register
// prediction, and the slowest prediction where the model fits no block.
#include "bounded_grid.hpp"

#include <memtune/model/target_catalog.hpp>
#include <memtune/model_prior.hpp>
#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune;

TEST_CASE("model_prior is the log of model_lower_bound's time on every valid config") {
  const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  const Target& h100 = catalog.find("h100-sxm");
  const KernelDescription& filter = templates::filter_description();
  const Problem problem = complete_problem(filter.problem, {{"n", 1 << 24}, {"taps", 21}});
  const search::Space space = filter.space(problem, h100);
  const auto prior = model_prior(filter, problem, h100, space);
  double slowest = -1e300;
  std::size_t predicted = 0;
  for (const search::Config& c : space.enumerate()) {
    const Evaluation e = model_lower_bound(filter, problem, h100, c, filter.bytes_moved(problem));
    CHECK(std::isfinite(prior(c)));
    if (e.timing) {
      CHECK(prior(c) == doctest::Approx(std::log(e.timing->median_s)));
      slowest = std::max(slowest, prior(c));
      ++predicted;
    }
  }
  CHECK(predicted > 0);
  for (const search::Config& c : space.enumerate())
    if (!model_lower_bound(filter, problem, h100, c, filter.bytes_moved(problem)).timing) CHECK(prior(c) == slowest);
}
