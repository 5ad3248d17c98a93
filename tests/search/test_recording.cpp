#include "spaces.hpp"

#include <memtune/search/grid.hpp>
#include <memtune/search/recording.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

using namespace memtune::search;
namespace fs = std::filesystem;

namespace {

Recording sample() {
  Recording r;
  r.template_name = "filter";
  r.problem = {{"n", 16777216}, {"taps", 21}};
  r.device = {{"name", "NVIDIA H100 80GB HBM3"}, {"compute_capability", "9.0"}, {"sm_count", 132}};
  r.space = testing::small_space();
  for (const Config& c : r.space.enumerate()) {
    if (c.at("block_size") == 512) {
      Trial t = testing::failed_trial(c, "exceeds_device_limits");
      t.reason = "too many registers";
      r.trials.push_back(t);
    } else {
      r.trials.push_back(testing::ok_trial(c, 1e-5 * static_cast<double>(c.at("block_size")) / static_cast<double>(c.at("items"))));
    }
  }
  return r;
}

// A fresh directory per test case, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("memtune-search-test-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

std::string load_error(const fs::path& file) {
  try {
    (void)load_recording(file);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("a recording round-trips through a file") {
  const TempDir dir;
  const Recording r = sample();
  save_recording(r, dir.path / "rec.json");
  CHECK_FALSE(fs::exists(dir.path / "rec.json.tmp"));
  const Recording back = load_recording(dir.path / "rec.json");
  CHECK(back.to_json() == r.to_json());
  CHECK(back.template_name == "filter");
  CHECK(back.problem.at("taps") == 21);
  REQUIRE(back.trials.size() == 22);
  CHECK(back.trials[3].time_s == r.trials[3].time_s);
  const auto failed = std::find_if(back.trials.begin(), back.trials.end(), [](const Trial& t) { return !t.ok(); });
  REQUIRE(failed != back.trials.end());
  CHECK(failed->status == "exceeds_device_limits");
  CHECK(failed->reason == "too many registers");
  REQUIRE(back.best().has_value());
  CHECK(back.best()->config == Config{{"block_size", 64}, {"items", 4}, {"layout", 0}});
}

TEST_CASE("replay looks trials up, and reports configs it lacks as failures") {
  Recording r = sample();
  const Config dropped = r.trials.back().config;
  r.trials.pop_back();
  const Objective replay = replay_objective(r);
  const Trial t = replay(r.trials[2].config);
  CHECK(t.time_s == r.trials[2].time_s);
  const Trial missing = replay(dropped);
  CHECK_FALSE(missing.ok());
  CHECK(missing.status == "not_recorded");

  GridSearch grid(r.space);
  const auto result = run_search(grid, replay);
  REQUIRE(result.best.has_value());
  CHECK(result.best->time_s == r.best()->time_s);
}

TEST_CASE("a JSON syntax error names the file and the line") {
  const TempDir dir;
  const auto file = dir.write("broken.json", "{\n  \"schema_version\": 1,\n  \"template\": \"filter\",,\n}\n");
  const std::string e = load_error(file);
  CHECK(e.find(file.string() + ":3:") != std::string::npos);
  CHECK(e.find("not valid JSON") != std::string::npos);
}

TEST_CASE("malformed recordings are rejected with the file and the problem named") {
  const TempDir dir;
  CHECK(load_error(dir.path / "absent.json").find("cannot open") != std::string::npos);

  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = sample().to_json();
    edit(j);
    const auto file = dir.write("edited.json", j.dump(1));
    return load_error(file);
  };
  CHECK(with([](auto& j) { j["schema_version"] = 2; }).find("schema_version 2") != std::string::npos);
  CHECK(with([](auto& j) { j.erase("trials"); }).find("missing 'trials'") != std::string::npos);
  CHECK(with([](auto& j) { j.erase("template"); }).find("missing 'template'") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][4].erase("time_s"); }).find("trial 4: missing 'time_s'") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][4]["time_s"] = -1.0; }).find("trial 4") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][1]["config"]["items"] = 3; }).find("trial 1") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][1]["config"] = {{"block_size", 512}, {"items", 4}, {"layout", "aos"}}; })
            .find("trial 1: invalid config") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][2]["config"] = j["trials"][1]["config"]; }).find("recorded twice") !=
        std::string::npos);
  CHECK(with([](auto& j) { j["trials"][0]["status"] = ""; }).find("trial 0") != std::string::npos);
  CHECK(with([](auto& j) { j["space"]["axes"][0]["kind"] = "fuzzy"; }).find("fuzzy") != std::string::npos);
  CHECK(with([](auto& j) { j["problem"] = 3; }).find("'problem'") != std::string::npos);
  const std::string e = with([](auto& j) { j["trials"] = 5; });
  CHECK(e.find((dir.path / "edited.json").string()) == 0);
}

TEST_CASE("the synthetic benchmark recording loads") {
  const Recording r = load_recording(MEMTUNE_SEARCH_BENCH_DATA "/synthetic_space.json");
  CHECK(r.template_name == "filter");
  CHECK(r.trials.size() == r.space.enumerate().size()); // every valid config recorded once
  CHECK(r.best().has_value());
  CHECK(std::any_of(r.trials.begin(), r.trials.end(), [](const Trial& t) { return !t.ok(); }));
}

TEST_CASE("saving into a missing directory names the file") {
  const TempDir dir;
  const fs::path target = dir.path / "no-such-dir" / "rec.json";
  CHECK_THROWS_WITH_AS(save_recording(sample(), target), doctest::Contains("no-such-dir"), std::runtime_error);
}
