// Where a sweep adds a size (sweep_refinement.hpp): between neighbours whose
// kept configurations disagree, at their log midpoint; nowhere when they
// agree; and `memtune sweep --refine N` runs those sizes and reports every
// size in order.
#include "sweep_refinement.hpp"

#include "../support/catalogue_target.hpp"
#include "../support/synthetic_result.hpp"
#include "run_cli.hpp"

#include <memtune/profile/profile_store.hpp>
#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

#include <unistd.h>

using namespace memtune;
using namespace memtune::cli;

namespace {

// The filter at size n, its first `count` configurations timed: the i-th at
// base + i * step seconds (a negative step turns the ranking around).
TuningResult timed_at(std::int64_t n, std::size_t count, double base, double step) {
  const KernelDescription& filter = templates::filter_description();
  TuningResult r;
  r.template_name = "filter";
  r.problem = filter.complete({{"n", n}, {"taps", 21}});
  r.space = filter.space(r.problem, catalogue_target("h100-sxm"));
  const auto configs = r.space.enumerate();
  REQUIRE(configs.size() >= count);
  for (std::size_t i = 0; i < count; ++i)
    r.evaluations.push_back(
        memtune::testing::synthetic_evaluation(configs[i], base + static_cast<double>(i) * step, 3000.0, 1 << 20));
  return r;
}

} // namespace

TEST_CASE("a size is added where neighbours kept nothing in common, at their log midpoint; none where they agree") {
  const TuningResult small = timed_at(1 << 20, 40, 10e-6, 0.1e-6);
  const TuningResult agree = timed_at(1 << 22, 40, 40e-6, 0.4e-6);    // the same ranking
  const TuningResult reverse = timed_at(1 << 22, 40, 60e-6, -0.4e-6); // the small size's slowest are fastest here
  CHECK_FALSE(refinement_point({&small, &agree}, {"n"}, 16));
  const auto mid = refinement_point({&small, &reverse}, {"n"}, 16);
  REQUIRE(mid);
  CHECK(mid->at("n") == 1 << 21); // sqrt(2^20 x 2^22)

  // Of several pairs (ordered by size), the one that disagrees; neighbours
  // one apart have nothing between them.
  const TuningResult tiny = timed_at(1 << 18, 40, 3e-6, 0.03e-6);
  const TuningResult next = timed_at((1 << 22) + 1, 40, 10e-6, 0.1e-6);
  const auto second = refinement_point({&tiny, &small, &reverse}, {"n"}, 16);
  REQUIRE(second);
  CHECK(second->at("n") == 1 << 21);
  CHECK_FALSE(refinement_point({&reverse, &next}, {"n"}, 16));
}

TEST_CASE("a sweep's entries keep the other sizes' bests where they timed them, in rank order") {
  const TuningResult small = timed_at(1 << 20, 40, 10e-6, 0.1e-6);   // best: the first configuration
  const TuningResult reverse = timed_at(1 << 22, 40, 60e-6, -0.4e-6); // best: the 40th
  const auto bests = best_configs({&small, &reverse});
  REQUIRE(bests.size() == 2);
  CHECK(bests[0] == small.space.config_to_json(small.evaluations.front().config));
  CHECK(bests[1] == reverse.space.config_to_json(reverse.evaluations.back().config));
  // Its 4 fastest, then the 40th-fastest because it is the other size's best.
  const ProfileEntry kept = make_profile_entry(reverse, 4, bests);
  REQUIRE(kept.runner_ups.size() == 5);
  CHECK(kept.runner_ups.back().at("config") == bests[0]);
  CHECK(kept.runner_ups.back().at("time_s").get<double>() == doctest::Approx(60e-6));
  for (std::size_t i = 1; i < kept.runner_ups.size(); ++i)
    CHECK(kept.runner_ups[i].at("time_s").get<double>() >= kept.runner_ups[i - 1].at("time_s").get<double>());
  // Without them the two sizes' fastest have nothing in common.
  CHECK(make_profile_entry(reverse, 4).runner_ups.size() == 4);
}

TEST_CASE("memtune sweep --refine: the added sizes run like the others and the report lists every size in order") {
  const std::string cache =
      (std::filesystem::temp_directory_path() / ("memtune-sweep-test-cache-" + std::to_string(::getuid()))).string();
  const auto r = memtune::testing::run_cli_args({"sweep", "filter", "--over", "n=64K:16M", "--points", "4", "--target",
                                                 "h100-sxm", "--strategy", "bayes", "--budget", "12", "--refine", "2",
                                                 "--json", "--cache-dir", cache});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.err.find("(refined: its neighbours disagree)") != std::string::npos);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& sizes = doc.at("sizes");
  REQUIRE(sizes.size() > 4);
  CHECK(sizes.size() <= 6);
  for (std::size_t i = 1; i < sizes.size(); ++i)
    CHECK(sizes[i].at("problem").at("n").get<std::int64_t>() > sizes[i - 1].at("problem").at("n").get<std::int64_t>());
  CHECK(sizes.front().at("problem").at("n") == 65536);
  CHECK(sizes.back().at("problem").at("n") == 16777216);
  // The planned sizes are not marked; each added one is, in the JSON and in the count.
  std::size_t marked = 0;
  for (const auto& size : sizes) marked += size.at("refined").get<bool>() ? 1 : 0;
  CHECK(marked == sizes.size() - 4);
  CHECK(doc.at("refined") == marked);
  CHECK_FALSE(sizes.front().at("refined").get<bool>());
  const auto refused = memtune::testing::run_cli_args({"sweep", "filter", "--over", "n=64K:16M", "--refine", "65",
                                                       "--target", "h100-sxm"});
  CHECK(refused.code == 2);
  const auto sharded = memtune::testing::run_cli_args({"sweep", "filter", "--over", "n=64K:16M", "--refine", "2",
                                                       "--shard", "1/2", "--target", "h100-sxm"});
  CHECK(sharded.code == 2);
  CHECK(sharded.err.find("--refine: adds sizes from a size's results, which differ from shard to shard") !=
        std::string::npos);
}
