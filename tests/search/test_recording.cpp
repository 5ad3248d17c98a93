#include "spaces.hpp"

#include <memtune/search/grid.hpp>
#include <memtune/search/recording.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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

TEST_CASE("a recording keeps its writer's kernel fingerprint, mode and other facts as they were") {
  const TempDir dir;
  Recording r = sample();
  r.kernel_fingerprint = "5f3a";
  r.mode = "modeled";
  r.annotations = {{"target", "h100"}, {"wall_seconds", 1.5}, {"copy_ceiling_gbps", 2823.0}};
  save_recording(r, dir.path / "rec.json");
  const Recording back = load_recording(dir.path / "rec.json");
  CHECK(back.kernel_fingerprint == "5f3a");
  CHECK(back.mode == "modeled");
  CHECK(back.annotations == r.annotations);
  CHECK(back.to_json() == r.to_json());
  CHECK(back.to_json().at("target") == "h100");
  // A recording without them reads with none and writes none.
  const Recording plain = sample();
  CHECK_FALSE(plain.to_json().contains("mode"));
  CHECK_FALSE(plain.to_json().contains("kernel_fingerprint"));
}

TEST_CASE("a recording keeps each trial's other keys, and writes them only when they pair with the trials") {
  Recording r = sample();
  r.trial_annotations.assign(r.trials.size(), nlohmann::json::object());
  r.trial_annotations.front() = {{"joules_per_launch", 0.0123}, {"device", 1}};
  const Recording back = Recording::from_json(r.to_json());
  REQUIRE(back.trial_annotations.size() == back.trials.size());
  CHECK(back.trial_annotations.front() == r.trial_annotations.front());
  CHECK(back.trials.front().config == r.trials.front().config);
  CHECK(back.trial_annotations.back() == nlohmann::json::object());
  // Filtered trials with their annotations left behind: nothing misattributed.
  Recording filtered = r;
  filtered.trials.erase(filtered.trials.begin());
  CHECK_FALSE(filtered.to_json()["trials"][0].contains("joules_per_launch"));
}

TEST_CASE("ranking: successful trials fastest first, ties in trial order; best() is its first") {
  Recording r = sample();
  const std::vector<std::size_t> rank = r.ranking();
  std::size_t ok = 0;
  for (const Trial& t : r.trials) ok += t.ok();
  REQUIRE(rank.size() == ok);
  for (std::size_t i = 1; i < rank.size(); ++i) {
    CHECK(*r.trials[rank[i - 1]].time_s <= *r.trials[rank[i]].time_s);
    if (*r.trials[rank[i - 1]].time_s == *r.trials[rank[i]].time_s) CHECK(rank[i - 1] < rank[i]);
  }
  CHECK(r.best()->config == r.trials[rank.front()].config);
  r.trials[rank[1]].time_s = r.trials[rank[0]].time_s; // a tie: the earlier trial wins
  CHECK(r.best()->config == r.trials[std::min(rank[0], rank[1])].config);
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
  CHECK(with([](auto& j) { j.erase("trials"); }).find("field 'trials': missing") != std::string::npos);
  CHECK(with([](auto& j) { j.erase("template"); }).find("field 'template': missing") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][4].erase("time_s"); }).find("field 'trials[4].time_s': missing") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][4]["time_s"] = -1.0; }).find("field 'trials[4].time_s'") != std::string::npos);
  // A denormal time would make an infinite GB/s (a null in the store merge writes from it).
  CHECK(with([](auto& j) { j["trials"][4]["time_s"] = 1e-310; })
            .find("field 'trials[4].time_s': must be a number of seconds of at least 1e-12 (a picosecond)") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][1]["config"]["items"] = 3; }).find("field 'trials[1].config'") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][1]["config"] = {{"block_size", 512}, {"items", 4}, {"layout", "aos"}}; })
            .find("field 'trials[1].config': invalid config") != std::string::npos);
  CHECK(with([](auto& j) { j["trials"][2]["config"] = j["trials"][1]["config"]; }).find("recorded twice") !=
        std::string::npos);
  CHECK(with([](auto& j) { j["trials"][0]["status"] = ""; }).find("field 'trials[0].status'") != std::string::npos);
  CHECK(with([](auto& j) { j["space"]["axes"][0]["kind"] = "fuzzy"; }).find("fuzzy") != std::string::npos);
  CHECK(with([](auto& j) { j["problem"] = 3; }).find("'problem'") != std::string::npos);
  const std::string e = with([](auto& j) { j["trials"] = 5; });
  CHECK(e.find((dir.path / "edited.json").string()) == 0);
  // The device block is read by report, --from and merge: range-checked here, once.
  CHECK(with([](auto& j) { j["device"]["sm_count"] = 4294967428ULL; })
            .find("field 'device.sm_count': expected an integer in [1, 65536], got 4294967428") != std::string::npos);
  CHECK(with([](auto& j) { j["device"]["sm_count"] = -7; }).find("field 'device.sm_count'") != std::string::npos);
  CHECK(with([](auto& j) { j["device"]["sm_count"] = "many"; }).find("field 'device.sm_count'") != std::string::npos);
  CHECK(with([](auto& j) { j["device"]["name"] = 3; }).find("field 'device.name'") != std::string::npos);
}

TEST_CASE("the synthetic benchmark recording loads") {
  const Recording r = load_recording(MEMTUNE_SEARCH_BENCH_DATA "/synthetic_space.json");
  CHECK(r.template_name == "filter");
  CHECK(r.trials.size() == r.space.enumerate().size()); // every valid config recorded once
  CHECK(r.best().has_value());
  CHECK(std::any_of(r.trials.begin(), r.trials.end(), [](const Trial& t) { return !t.ok(); }));
}

TEST_CASE("saving creates missing folders; a folder that cannot be made names the file") {
  const TempDir dir;
  const fs::path target = dir.path / "new-dir" / "rec.json";
  save_recording(sample(), target);
  CHECK(load_recording(target).trials.size() == sample().trials.size());
  const fs::path blocked = dir.write("plain-file", "x") / "rec.json";
  CHECK_THROWS_WITH_AS(save_recording(sample(), blocked), doctest::Contains("plain-file"), memtune::InputError);
}

TEST_CASE("a trial with an axis the space does not have names the file, the line and the field") {
  const TempDir dir;
  nlohmann::json j = sample().to_json();
  j["trials"][2]["config"]["warp_shuffle"] = 1;
  const auto file = dir.write("unknown-axis.json", j.dump(1));
  const std::string e = load_error(file);
  CHECK(e.find(file.string() + ":") == 0);
  CHECK(e.find("field 'trials[2].config'") != std::string::npos);
  CHECK(e.find("unknown axis 'warp_shuffle'") != std::string::npos);
  // dump(1) puts trial 2's config on a line of its own, well after line 1.
  CHECK(e.find(file.string() + ":1:") == std::string::npos);
}

TEST_CASE("saving never replaces a file that is not a recording") {
  const TempDir dir;
  const std::string store = R"({"schema_version": 1, "entries": []})";
  const auto file = dir.write("profiles.json", store);
  CHECK_THROWS_WITH_AS(save_recording(sample(), file), doctest::Contains("is not a memtune recording"),
                       memtune::InputError);
  std::ifstream in(file);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == store);
  // A recording is replaced; an empty file too.
  save_recording(sample(), file.parent_path() / "rec.json");
  save_recording(sample(), file.parent_path() / "rec.json");
  save_recording(sample(), dir.write("empty.json", ""));
}

// A crash once found: a constraint nested ~30000 levels deep overflowed the
// stack of the recursive expression reader. The JSON reader refuses it first.
TEST_CASE("a recording nested 30000 levels deep is refused with the file and the line") {
  const TempDir dir;
  std::string deep;
  for (int i = 0; i < 30000; ++i) deep += R"({"op": "+", "args": [1, )";
  deep += "1";
  for (int i = 0; i < 30000; ++i) deep += "]}";
  nlohmann::json j = sample().to_json();
  j["space"]["constraints"] = nlohmann::json::array();
  std::string text = j.dump();
  const std::string marker = R"("constraints":[])";
  text.replace(text.find(marker), marker.size(), R"("constraints":[{"lhs": )" + deep + R"(, "cmp": "<=", "rhs": 1}])");
  const auto file = dir.write("deep.json", text);
  const std::string e = load_error(file);
  CHECK(e.find(file.string() + ":1:") == 0);
  CHECK(e.find("nested deeper than 256 levels") != std::string::npos);
}


// Found by tests/fuzz/fuzz_recording: a constraint over a misspelt axis threw
// std::out_of_range from every validity check, without file or field.
TEST_CASE("a constraint over an axis the space lacks names the constraint") {
  const TempDir dir;
  nlohmann::json j = sample().to_json();
  j["space"]["constraints"].push_back(
      {{"lhs", "items"}, {"cmp", "=="}, {"rhs", 1}, {"if", {{"lhs", "liyout"}, {"cmp", "=="}, {"rhs", 0}}}});
  const std::size_t index = j["space"]["constraints"].size() - 1;
  const auto file = dir.write("misspelt.json", j.dump(1));
  const std::string e = load_error(file);
  CHECK(e.find(file.string() + ":") == 0);
  CHECK(e.find("field 'space.constraints[" + std::to_string(index) + "]': names axis 'liyout'") != std::string::npos);
}

// Found by tests/fuzz/fuzz_recording: a float out of the int64 range among an
// axis's values was converted with undefined behaviour.
TEST_CASE("an axis value that is not an integer names the axis value") {
  const TempDir dir;
  nlohmann::json j = sample().to_json();
  j["space"]["axes"][0]["values"][1] = 6.6e75;
  const auto file = dir.write("float-value.json", j.dump(1));
  const std::string e = load_error(file);
  CHECK(e.find(file.string() + ":") == 0);
  CHECK(e.find("field 'space.axes[0].values[1]': expected an integer, got 6.6e+75") != std::string::npos);
}

TEST_CASE("a space's shard, pruned axes and axis names of the wrong type name the field, not nlohmann") {
  const TempDir dir;
  const auto error_with = [&](const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json j = sample().to_json();
    j["space"][nlohmann::json::json_pointer(pointer)] = value;
    return load_error(dir.write("typed.json", j.dump(1)));
  };
  CHECK(error_with("/shard", nullptr).find("field 'space.shard': expected an object, got null") != std::string::npos);
  CHECK(error_with("/shard", nlohmann::json{{"index", 0}, {"count", 2}}).find("field 'space.shard.index'") != std::string::npos);
  CHECK(error_with("/pruned", nlohmann::json::array({nlohmann::json{{"name", 3}, {"reason", "x"}}})).find("field 'space.pruned[0].name'") != std::string::npos);
  CHECK(error_with("/axes/0/name", nullptr).find("field 'space.axes[0].name'") != std::string::npos);
  for (const char* pointer : {"/shard", "/pruned", "/axes/0/name"})
    CHECK(error_with(pointer, nullptr).find("json.exception") == std::string::npos);
}
