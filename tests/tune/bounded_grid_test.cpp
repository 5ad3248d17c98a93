// The modeled grid's bound (tune/src/bounded_grid.hpp): the premise it rests
// on (the model's time never rises with occupancy), that a bounded run's
// table equals the exhaustive run's, and that a broken bound compiles all.
// The cut-off and its strategy: bound_order_test.cpp.
#include "tune/src/bounded_grid.hpp"

#include <memtune/model/target_catalog.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <random>

using namespace memtune;

namespace {
const model::TargetCatalog& catalog() {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}
} // namespace

// The premise of the bound: for any configuration, whatever registers it
// compiles to (so fewer or equal blocks per SM), the model never predicts a
// shorter time than its no-register bound.
TEST_CASE("no register count makes the model predict less than the bound, on every filter and aos_soa config") {
  for (const char* target_name : {"k20", "h100-sxm", "t4"}) {
    const Target& target = catalog().find(target_name);
    for (const KernelDescription* kernel : std::vector<const KernelDescription*>{&templates::filter_description(), &templates::aos_soa_description()}) {
      const Problem problem = complete_problem(kernel->problem, {{"n", 1 << 22}});
      const auto space = kernel->space(problem, target);
      for (const auto& config : space.enumerate()) {
        CAPTURE(target_name);
        CAPTURE(space.format(config));
        const Evaluation bound = model_lower_bound(*kernel, problem, target, config, kernel->bytes_moved(problem));
        if (!bound.timing) continue;
        for (int registers : {32, 64, 96, 128, 168, 255}) {
          Evaluation e = bound;
          e.timing.reset();
          e.model.reset();
          e.resources.registers = registers;
          predict_candidate(e, *kernel, problem, target, kernel->bytes_moved(problem));
          if (!e.timing) break; // no block fits any more
          CHECK(e.timing->median_s >= bound.timing->median_s * (1 - 1e-9));
        }
      }
    }
  }
}

// The same for the kernels with loops (loaded latency, spills, per-warp cache
// shares, traffic that depends on the resident blocks): every 5th fdtd and
// matvec configuration on the H100 and the K20.
TEST_CASE("no register count makes the model predict less than the bound, on fdtd and matvec configs") {
  for (const char* target_name : {"h100-sxm", "k20"}) {
    const Target& target = catalog().find(target_name);
    for (const KernelDescription* kernel : std::vector<const KernelDescription*>{&templates::fdtd_description(), &templates::matvec_description()}) {
      const Problem problem = complete_problem(kernel->problem, {});
      const auto configs = kernel->space(problem, target).enumerate();
      const auto space = kernel->space(problem, target);
      for (std::size_t i = 0; i < configs.size(); i += 5) {
        const auto& config = configs[i];
        CAPTURE(target_name);
        CAPTURE(space.format(config));
        const Evaluation bound = model_lower_bound(*kernel, problem, target, config, kernel->bytes_moved(problem));
        if (!bound.timing) continue;
        for (int registers : {32, 64, 128, 255}) {
          Evaluation e = bound;
          e.timing.reset();
          e.model.reset();
          e.resources.registers = registers;
          predict_candidate(e, *kernel, problem, target, kernel->bytes_moved(problem));
          if (!e.timing) break;
          CAPTURE(registers);
          CAPTURE(e.model->time.describe());
          CHECK(e.timing->median_s >= bound.timing->median_s * (1 - 1e-9));
        }
      }
    }
  }
}

TEST_CASE("a bounded modeled grid ranks its top k exactly as the exhaustive one") {
  const auto cache = std::filesystem::temp_directory_path() / ("memtune-bounded-" + std::to_string(std::random_device{}()));
  const Target& k20 = catalog().find("k20");
  const auto& kernel = templates::aos_soa_description();
  const Problem problem{{"n", 1 << 20}, {"op", 0}};
  TuneOptions options;
  options.cache_folder = cache;
  options.exact_top = 0;
  const TuningResult all = tune_modeled(kernel, problem, k20, options);
  options.exact_top = 5;
  const TuningResult bounded = tune_modeled(kernel, problem, k20, options);
  std::filesystem::remove_all(cache);

  CHECK(all.configs_not_compiled == 0);
  CHECK_FALSE(bounded.bound_violated);
  CHECK(bounded.configs_not_compiled > 0);
  CHECK(bounded.evaluations.size() + bounded.configs_not_compiled == all.evaluations.size());
  const auto rank_all = all.ranking(), rank_bounded = bounded.ranking();
  REQUIRE(rank_bounded.size() >= 5);
  for (std::size_t i = 0; i < 5; ++i)
    CHECK(bounded.evaluations[rank_bounded[i]].timing->median_s == all.evaluations[rank_all[i]].timing->median_s);
}

// The fallback end to end: the second candidate predicted comes out at half
// its bound, so the run stops trusting the bound and compiles every
// candidate, still in bound order, after the ones no block fits.
TEST_CASE("a bounded modeled grid whose model undercuts a bound compiles every candidate") {
  const auto cache = std::filesystem::temp_directory_path() / ("memtune-bounded-" + std::to_string(std::random_device{}()));
  const Target& h100 = catalog().find("h100-sxm");
  const auto& kernel = templates::aos_soa_description();
  const Problem problem = kernel.complete({{"n", 1 << 20}, {"op", 0}});
  TuneOptions options;
  options.exact_top = 3;
  options.compile_threads = 2;
  TuningResult result = new_tuning_result(kernel, problem, h100, options, /*measured=*/false);
  const auto bound_of = [&](const search::Config& c) {
    return model_lower_bound(kernel, problem, h100, c, result.bytes_moved).timing;
  };
  std::size_t unfit = 0;
  for (const auto& c : result.space.enumerate()) unfit += bound_of(c) ? 0 : 1;
  REQUIRE(result.space.enumerate().size() > 2 * options.exact_top);
  {
    CompileCache compile_cache(cache);
    CompilePool pool(&compile_cache, options.compile_threads);
    int timed = 0;
    run_bounded_grid(kernel, problem, h100, h100.compute_capability(), options, pool, result, [&](Pending& p) {
      Evaluation e;
      if (!take_compiled(p, h100, e)) return e;
      predict_candidate(e, kernel, problem, h100, result.bytes_moved);
      if (e.timing && ++timed == 2) e.timing->median_s = bound_of(e.config)->median_s / 2;
      return e;
    });
  }
  std::filesystem::remove_all(cache);

  CHECK(result.bound_violated);
  CHECK(result.exact_top == 3);
  CHECK(result.configs_not_compiled == 0);
  REQUIRE(result.evaluations.size() == result.space.enumerate().size());
  double last = 0;
  for (std::size_t i = 0; i < result.evaluations.size(); ++i) {
    const auto bound = bound_of(result.evaluations[i].config);
    CHECK(bound.has_value() == (i >= unfit));
    if (!bound) continue;
    CHECK(bound->median_s >= last);
    last = bound->median_s;
  }
}
