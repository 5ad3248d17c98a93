// The modeled grid's bound (tune/src/bounded_grid.hpp): the cut-off logic,
// the premise it rests on (the model's time never rises with occupancy), and
// that a bounded run's table equals the exhaustive run's.
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

TEST_CASE("top-k cut-off: compiles until k are known, then only bounds below the k-th") {
  TopKCutoff cut(2);
  CHECK(cut.worth_compiling(9.0));
  cut.add(3.0, 1.0);
  CHECK(cut.worth_compiling(9.0)); // one of two known
  cut.add(std::nullopt, 1.0);      // a failed candidate fills no slot
  CHECK(cut.worth_compiling(9.0));
  cut.add(5.0, 2.0);
  CHECK_FALSE(cut.worth_compiling(5.0)); // could only tie the 2nd best
  CHECK(cut.worth_compiling(4.9));
  cut.add(4.0, 4.0);                     // the 2nd best is now 4
  CHECK_FALSE(cut.worth_compiling(4.5));
  CHECK_FALSE(cut.violated());
}

TEST_CASE("top-k cut-off: a prediction below its bound turns the cut-off off") {
  TopKCutoff cut(1);
  cut.add(1.0, 1.0);
  CHECK_FALSE(cut.worth_compiling(2.0));
  cut.add(0.5, 0.9);
  CHECK(cut.violated());
  CHECK(cut.worth_compiling(100.0));
}

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
