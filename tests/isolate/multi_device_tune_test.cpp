// tune() on several GPUs (TuneOptions::devices), end to end on the CPU: the
// scripted worker (scripted_worker.cpp) plays each GPU, one worker process
// per ordinal; the search loop keeps as many candidates in flight as there
// are workers. Everything else is real (NVRTC compiles, the watchdog, the
// journal, bayes batches).
#include <memtune/tune/tuner.hpp>

#include "scripted_run.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include <unistd.h>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

TuneOptions on(const std::string& devices, TuneOptions o = scripted_options()) {
  o.devices = DeviceList::parse(devices);
  return o;
}

std::size_t lines_in(const fs::path& file) {
  std::ifstream in(file);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

} // namespace

TEST_CASE("on two GPUs every candidate runs once, on either GPU, and a crash or a hang on one does not stop the other") {
  const fs::path dir = fs::temp_directory_path() / ("memtune-devices-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const TuningResult single = tune(scripted(), {}, scripted_options()); // also fills the compile cache

  TuneOptions o = on("all");
  o.journal.file = dir / "run.journal";
  ::setenv("MEMTUNE_SCRIPTED_LOG", (dir / "measured.log").c_str(), 1);
  const TuningResult r = tune(scripted(), {{"gpus", 2}}, o);
  ::unsetenv("MEMTUNE_SCRIPTED_LOG");

  CHECK(r.aborted.empty());
  CHECK(r.devices == std::vector<int>{0, 1});
  REQUIRE(r.evaluations.size() == 14);
  std::set<std::string> configs;
  std::set<int> used;
  for (const Evaluation& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CAPTURE(e.reason);
    configs.insert(r.space.format(e.config));
    CHECK(std::string(to_string(e.status)) == behaviour_status(e.config.at("behaviour")));
    CHECK((e.device == 0 || e.device == 1)); // every candidate reached a GPU (none fails to compile)
    used.insert(e.device);
  }
  CHECK(configs.size() == 14);                 // none twice
  CHECK(used == std::set<int>{0, 1});          // both GPUs measured
  CHECK(lines_in(dir / "measured.log") == 14); // the workers ran each once
  CHECK(lines_in(dir / "run.journal") == 2 + 14); // header, setup, every candidate
  CHECK(r.worker_restarts == 8);
  REQUIRE(r.best());
  CHECK(r.best()->config == single.best()->config);
  CHECK(r.ceiling->gbps == 2000);
  // The same results as on one GPU, in completion order rather than grid order.
  std::map<std::string, std::string> by_config;
  for (const Evaluation& e : single.evaluations) by_config[single.space.format(e.config)] = to_string(e.status);
  for (const Evaluation& e : r.evaluations) CHECK(by_config.at(r.space.format(e.config)) == to_string(e.status));
  fs::remove_all(dir);
}

TEST_CASE("while one GPU's candidate hangs until the watchdog, the other GPU measures the rest") {
  TuneOptions o = on("0,1");
  o.only = {{"block", "128"}}; // behaviours 0 to 6 in grid order: the hang (2) is the third
  TuneOptions warm = scripted_options();
  warm.only = o.only;
  (void)tune(scripted(), {}, warm); // a warm compile cache: the GPUs, not NVRTC, set the pace
  const TuningResult r = tune(scripted(), {{"gpus", 2}}, o);
  REQUIRE(r.evaluations.size() == 7);
  const Evaluation& last = r.evaluations.back();
  CHECK(last.status == Status::timeout); // 1 s, while everything after it ran on the other GPU
  for (const Evaluation& e : r.evaluations) {
    if (e.config.at("behaviour") <= 2) continue;
    CAPTURE(r.space.format(e.config));
    CHECK(e.device == 1 - last.device);
  }
}

TEST_CASE("one GPU through --devices is the single-GPU run, candidate for candidate") {
  TuneOptions o = scripted_options();
  o.strategy = "bayes";
  o.budget = 10;
  const TuningResult plain = tune(asset_description("journal_space.json"), {}, o);
  const TuningResult listed = tune(asset_description("journal_space.json"), {}, on("0", o));
  REQUIRE(plain.evaluations.size() == listed.evaluations.size());
  for (std::size_t i = 0; i < plain.evaluations.size(); ++i) {
    CHECK(plain.evaluations[i].config == listed.evaluations[i].config);
    CHECK(plain.evaluations[i].timing->median_s == listed.evaluations[i].timing->median_s);
    CHECK(listed.evaluations[i].device == 0);
  }
  CHECK(listed.devices == std::vector<int>{0});
}

TEST_CASE("bayes on four GPUs proposes batches that keep them busy: no config twice, the budget kept, GPUs shared") {
  // Candidates slower than their compiles: a GPU is busy when the next is ready.
  ::setenv("MEMTUNE_SCRIPTED_DELAY_MS", "150", 1);
  ::setenv("MEMTUNE_SCRIPTED_GPUS", "4", 1);
  TuneOptions o = on("all");
  o.strategy = "bayes";
  o.budget = 12;
  const TuningResult r = tune(asset_description("journal_space.json"), {}, o);
  ::unsetenv("MEMTUNE_SCRIPTED_DELAY_MS");
  ::unsetenv("MEMTUNE_SCRIPTED_GPUS");
  CHECK(r.aborted.empty());
  CHECK(r.devices == std::vector<int>{0, 1, 2, 3});
  REQUIRE(r.evaluations.size() == 12);
  std::set<std::string> configs;
  std::set<int> used;
  for (const Evaluation& e : r.evaluations) {
    configs.insert(r.space.format(e.config));
    used.insert(e.device);
    CHECK(e.ok());
  }
  CHECK(configs.size() == 12);
  // One proposal at a time would always find GPU 0 idle: batches spread.
  CHECK(used.size() >= 2);
}

TEST_CASE("GPUs of two models are refused, naming them; tune_each_model tunes each model on its own GPUs") {
  const Problem mixed{{"gpus", 3}, {"mixed", 1}};
  TuneOptions o = on("all");
  o.only = {{"behaviour", "0"}};
  CHECK_THROWS_WITH_AS(tune(scripted(), mixed, o),
                       doctest::Contains("the GPUs are of 2 models (0, 2: H100 SXM5 80GB (sm_90, 132 SMs); 1: Scripted "
                                         "Other GPU (sm_90, 66 SMs))"),
                       MixedDevices);
  // One model's GPUs are fine.
  CHECK(tune(scripted(), mixed, on("0,2", o)).devices == std::vector<int>{0, 2});

  const fs::path journal = fs::temp_directory_path() / ("memtune-mixed-" + std::to_string(::getpid()) + ".journal");
  o.journal.file = journal;
  const std::vector<TuningResult> each = tune_each_model(scripted(), mixed, o);
  REQUIRE(each.size() == 2);
  CHECK(each[0].devices == std::vector<int>{0, 2});
  CHECK(each[0].device.name == "H100 SXM5 80GB");
  CHECK(each[1].devices == std::vector<int>{1});
  CHECK(each[1].device.name == "Scripted Other GPU");
  for (const TuningResult& r : each) {
    CHECK(r.evaluations.size() == 2);
    CHECK(r.best());
    const fs::path own = path_for_model(journal, r.device); // one journal per model
    CHECK(fs::exists(own));
    fs::remove(own);
  }
  CHECK_FALSE(fs::exists(journal));
  // A host of one model: tune_each_model is tune().
  CHECK(tune_each_model(scripted(), {{"gpus", 2}}, on("all", o)).size() == 1);
}

TEST_CASE("every worker starts at once: a list, or all counted here; without a count the others start after the first") {
  // Each worker takes 1 s to be ready (a GPU's context); a warm cache and one candidate: the start sets the pace.
  const Problem slow{{"gpus", 3}, {"start_ms", 1000}};
  TuneOptions warm = scripted_options();
  warm.only = {{"behaviour", "0"}, {"block", "128"}};
  (void)tune(scripted(), {}, warm);
  const auto first_candidate = [&](const std::string& devices, std::function<std::optional<int>()> count) {
    TuneOptions o = on(devices, warm);
    o.isolation.count_gpus = std::move(count);
    const TuningResult r = tune(scripted(), slow, o);
    CHECK(r.aborted.empty());
    CHECK(r.devices == std::vector<int>{0, 1, 2});
    REQUIRE(r.setup_times);
    REQUIRE(r.setup_times->workers.size() == 3);
    CHECK(r.setup_times->workers[2].start_s == doctest::Approx(1.01));
    REQUIRE(r.setup_times->first_candidate_s);
    return *r.setup_times->first_candidate_s;
  };
  const auto none = [] { return std::optional<int>(); };
  CHECK(first_candidate("0,1,2", none) < 1.8);
  CHECK(first_candidate("all", [] { return std::optional<int>(3); }) < 1.8);
  CHECK(first_candidate("all", none) >= 2.0); // the first's ready, then the others'
}

TEST_CASE("the first worker's driver has the last word on all; a worker that cannot start among several is named") {
  TuneOptions o = on("all");
  o.only = {{"behaviour", "0"}};
  o.isolation.count_gpus = [] { return std::optional<int>(4); }; // this process saw more GPUs than the workers
  CHECK(tune(scripted(), {{"gpus", 2}}, o).devices == std::vector<int>{0, 1});
  o.isolation.count_gpus = [] { return std::optional<int>(1); }; // and fewer
  CHECK(tune(scripted(), {{"gpus", 3}}, o).devices == std::vector<int>{0, 1, 2});
  o.isolation.count_gpus = [] { return std::optional<int>(3); };
  CHECK_THROWS_AS(tune(scripted(), {{"gpus", 3}, {"mixed", 1}}, o), MixedDevices);

  for (const char* devices : {"0,1,2", "all"}) {
    CAPTURE(devices);
    const std::string expected =
        std::string("--devices ") + devices + ": a worker did not start: GPU 1: CUDA_ERROR_ECC_UNCORRECTABLE (scripted)";
    CHECK_THROWS_WITH_AS(tune(scripted(), {{"gpus", 3}, {"broken_gpu", 1}}, on(devices, o)),
                         doctest::Contains(expected.c_str()), std::runtime_error);
  }
}

TEST_CASE("a GPU the host does not have is refused before anything runs") {
  CHECK_THROWS_WITH_AS(tune(scripted(), {{"gpus", 2}}, on("0,3")),
                       doctest::Contains("--devices 0,3: there is no GPU 3: the driver reports 2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(tune(scripted(), {{"gpus", 2}}, on("0,3,1")),
                       doctest::Contains("--devices 0,3,1: there is no GPU 3: the driver reports 2"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(tune(scripted(), {{"gpus", 2}}, on("5")), doctest::Contains("there is no GPU 5"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(tune(scripted(), {{"gpus", 2}}, on("3,0")), doctest::Contains("there is no GPU 3"),
                       std::invalid_argument);
  CHECK_THROWS_AS(tune(scripted(), {{"no_device", 1}}, on("all")), DeviceRequired);
}
