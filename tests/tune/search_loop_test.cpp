// The search loop (tune/include/memtune/tune/search_loop.hpp) with an objective: the
// strategy and the stop rules see the run's objective, not the time, so a
// run for energy stops on energy's patience and ranks by joules; and with
// several candidates in flight: the order they end, a lost context, the budget.
#include <memtune/tune/search_loop.hpp>

#include "../support/asset_description.hpp"
#include "../support/catalogue_target.hpp"

#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

// Each candidate faster than the one before and hungrier: time improves at
// every step, energy never after the first.
TuningResult run(Objective objective, double time_budget_s = 0) {
  const Target& target = catalogue_target("h100-sxm");
  const KernelDescription& d = asset_description("journal_space.json");
  const Problem problem = d.complete({});
  TuneOptions o;
  o.strategy = "grid";
  o.patience = 3;
  o.budget = 12;
  o.objective = objective;
  o.time_budget_s = time_budget_s;
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

TEST_CASE("a time budget past what the clock counts is no limit, not a deadline overflowed into the past") {
  for (const double budget : {1e10, 1e308}) {
    CAPTURE(budget);
    const TuningResult r = run(Objective::time, budget);
    CHECK(r.evaluations.size() == 12); // the evaluation budget stops it, not the time
    CHECK(r.stop_reason.find("wall-time") == std::string::npos);
  }
}

namespace {

// Two GPUs: the newest candidate in flight ends first; the start of number
// `lost_at` (1-based) finds the context lost.
class TwoGpus final : public CandidateEvaluator {
public:
  explicit TwoGpus(std::size_t lost_at) : lost_at_(lost_at) {}
  [[nodiscard]] std::size_t capacity() const override { return 2; }
  std::optional<Evaluation> start(Pending& p) override {
    if (++starts_ == lost_at_) throw ContextLost{"boom"};
    started.push_back(p.config);
    in_flight_.push_back(p.config);
    return std::nullopt;
  }
  Evaluation finish() override {
    REQUIRE_FALSE(in_flight_.empty());
    Evaluation e;
    e.config = in_flight_.back();
    in_flight_.pop_back();
    e.block_threads = 128;
    Timing t;
    t.median_s = t.min_s = t.max_s = 1e-3;
    t.samples = 10;
    e.timing = t;
    return e;
  }
  std::vector<search::Config> started;

private:
  std::size_t lost_at_;
  std::size_t starts_ = 0;
  std::vector<search::Config> in_flight_;
};

TuningResult run_on(TwoGpus& gpus, std::size_t budget, std::vector<search::Config>& shown) {
  const Target& target = catalogue_target("h100-sxm");
  const KernelDescription& d = asset_description("journal_space.json");
  const Problem problem = d.complete({});
  TuneOptions o;
  o.strategy = "grid";
  o.budget = budget;
  o.cache_folder = fs::temp_directory_path() / "memtune-search-loop-test-cache";
  o.compile_threads = 2;
  o.on_evaluation = [&](const Evaluation& e, std::size_t n) {
    shown.push_back(e.config);
    CHECK(n == shown.size());
  };
  TuningResult result = new_tuning_result(d, problem, target, o, /*measured=*/true);
  CompileCache cache(*o.cache_folder);
  CompilePool pool(&cache, o.compile_threads);
  run_search_loop(d, problem, target, target.compute_capability(), o, pool, result, gpus);
  return result;
}

std::vector<search::Config> configs_of(const TuningResult& r) {
  std::vector<search::Config> out;
  for (const auto& e : r.evaluations) out.push_back(e.config);
  return out;
}

} // namespace

TEST_CASE("the loop on two GPUs: evaluations kept in the order they end; a lost context keeps what was in flight") {
  TwoGpus gpus(/*lost_at=*/5);
  std::vector<search::Config> shown;
  const TuningResult result = run_on(gpus, 12, shown);
  // 1 and 2 start, 2 ends; 3 starts and ends; 4 starts and ends; the 5th
  // start loses the context, and 1, still in flight, ends and is kept.
  REQUIRE(gpus.started.size() == 4);
  const std::vector<search::Config> ended{gpus.started[1], gpus.started[2], gpus.started[3], gpus.started[0]};
  CHECK(configs_of(result) == ended);
  CHECK(shown == ended);
  CHECK(result.aborted == "stopped early: the GPU context became unusable (boom); results up to this candidate are kept");
  CHECK(result.stop_reason.empty());
}

TEST_CASE("the loop on two GPUs starts no candidate past the budget") {
  TwoGpus gpus(/*lost_at=*/0);
  std::vector<search::Config> shown;
  const TuningResult result = run_on(gpus, 3, shown);
  // Without the budget capping proposals, a 4th would start while the 3rd runs.
  CHECK(gpus.started.size() == 3);
  CHECK(result.evaluations.size() == 3);
  CHECK(result.stop_reason.find("evaluation budget of 3") != std::string::npos);
  CHECK(result.aborted.empty());
}

TEST_CASE("a compile failure's reason: the error lines and memtune's own, else the log's end, not ptxas' report") {
  const std::string report = "ptxas info    : Compiling entry function '_Z1aPf' for 'sm_90'\n"
                             "ptxas info    : Used 32 registers\n";
  CHECK(summarize_log(report + "k.cu(3): error: identifier \"x\" is undefined\n") ==
        "k.cu(3): error: identifier \"x\" is undefined");
  CHECK(summarize_log(report + "memtune: cannot tell which kernel of the CUBIN is k<int>") ==
        "memtune: cannot tell which kernel of the CUBIN is k<int>");
  std::string long_report;
  for (int i = 0; i < 20; ++i) long_report += report;
  const std::string reason = summarize_log(long_report + "Killed");
  CHECK(reason.starts_with("..."));
  CHECK(reason.ends_with("Killed"));
  CHECK(reason.size() == 303);
}

TEST_CASE("bayes' first candidates: another size's configuration that is a duplicate here runs as the one the space keeps") {
  // journal_space with a made-up duplicate rule: at n <= 4096, a 2 is a 1.
  const fs::path folder = fs::path(MEMTUNE_TEST_ASSETS_DIR) / "descriptions";
  std::ifstream file(folder / "journal_space.json");
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(file);
  j["constraints"] = {{{"expr", "a != 2 || n > 4096"}, {"reason", "a 2 is a 1 here"}, {"same_as", {{"a", 1}}}}};
  const KernelDescription d = description_from_json(j, (folder / "journal_space.json").string(), folder);
  const Target& target = catalogue_target("h100-sxm");
  const Problem problem = d.complete({});
  TuneOptions o;
  o.strategy = "bayes";
  o.budget = 1;
  o.first = {{{"a", 2}, {"b", 3}}}; // the best of a larger n
  o.cache_folder = fs::temp_directory_path() / "memtune-search-loop-test-cache";
  o.compile_threads = 1;
  TuningResult result = new_tuning_result(d, problem, target, o, /*measured=*/true);
  CompileCache cache(*o.cache_folder);
  CompilePool pool(&cache, o.compile_threads);
  std::vector<search::Config> evaluated;
  run_search_loop(d, problem, target, target.compute_capability(), o, pool, result, [&](Pending& p) {
    evaluated.push_back(p.config);
    Evaluation e;
    e.config = p.config;
    Timing t;
    t.median_s = t.min_s = t.max_s = 1e-3;
    t.samples = 10;
    e.timing = t;
    return e;
  });
  REQUIRE(evaluated.size() == 1);
  CHECK(evaluated.front() == search::Config{{"a", 1}, {"b", 3}});
}
