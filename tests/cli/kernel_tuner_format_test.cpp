#include "kernel_tuner_format.hpp"
#include "run_cli.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

using namespace memtune;
using namespace memtune::cli;

namespace {

search::Recording small_recording() {
  search::Recording r;
  r.template_name = "aos_soa";
  r.device = {{"name", "Test GPU"}};
  r.problem = {{"n", 1024}, {"op", 0}};
  r.space.add(search::Axis::ordinal("block_size", {64, 128}));
  r.space.add(search::Axis::categorical("layout", {"aos", "soa"}));
  const char* statuses[] = {"ok", "compile_failed", "ok", "exceeds_device_limits"};
  int i = 0;
  for (const auto& c : r.space.enumerate()) {
    search::Trial t;
    t.config = c;
    t.status = statuses[i];
    if (t.status == "ok") t.time_s = 1e-5 * (i + 1);
    r.trials.push_back(t);
    ++i;
  }
  return r;
}

} // namespace

TEST_CASE("kernel tuner: a recording exported as a cache imports back to the same trials") {
  const search::Recording rec = small_recording();
  const auto cache = kernel_tuner_cache(rec);
  CHECK(cache.at("tune_params").at("layout") == nlohmann::ordered_json::array({"aos", "soa"}));
  CHECK(cache.at("cache").at("64,soa").at("time") == "CompilationFailedConfig");
  CHECK(cache.at("cache").at("128,soa").at("time") == "InvalidConfig");
  CHECK(cache.at("cache").at("64,aos").at("time").get<double>() == doctest::Approx(1e-2)); // ms
  const search::Recording back = recording_from_kernel_tuner(cache.dump(1), {});
  REQUIRE(back.trials.size() == rec.trials.size());
  for (std::size_t i = 0; i < rec.trials.size(); ++i) {
    CHECK(back.trials[i].config == rec.trials[i].config);
    CHECK(back.trials[i].status == rec.trials[i].status);
    CHECK(back.trials[i].time_s.has_value() == rec.trials[i].time_s.has_value());
    if (rec.trials[i].time_s) CHECK(*back.trials[i].time_s == doctest::Approx(*rec.trials[i].time_s));
  }
  CHECK(back.template_name == "aos_soa");
  CHECK(back.device.at("name") == "Test GPU");
  // And it is a valid recording.
  CHECK_NOTHROW((void)search::Recording::from_json(back.to_json()));
}

TEST_CASE("kernel tuner: an open cache (still being appended to) reads as Kernel Tuner reads it") {
  const std::string open_cache = R"({
"device_name": "NVIDIA A100",
"kernel_name": "vector_add",
"problem_size": 1000,
"tune_params_keys": ["block_size_x", "use_shared"],
"tune_params": {"block_size_x": [128, 64], "use_shared": [true, false]},
"objective": "time",
"cache": {
"128,True": {"block_size_x": 128, "use_shared": true, "time": 0.5},
"64,False": {"block_size_x": 64, "use_shared": false, "time": "RuntimeFailedConfig"},)";
  const search::Recording r = recording_from_kernel_tuner(open_cache, {});
  REQUIRE(r.trials.size() == 2);
  CHECK(r.space.axis("block_size_x").values == std::vector<std::int64_t>{64, 128}); // sorted ordinal
  CHECK(r.space.axis("use_shared").labels == std::vector<std::string>{"true", "false"});
  CHECK(*r.trials[0].time_s == doctest::Approx(5e-4));
  CHECK(r.trials[1].status == "launch_failed");
  CHECK(r.device.at("name") == "NVIDIA A100");
}

TEST_CASE("kernel tuner: Kernel Tuner 1.x's failed configurations (\"__error__\", no \"time\") map to memtune's statuses") {
  // As Kernel Tuner 1.5 writes them (util.store_cache), still open.
  const std::string cache = R"({
"device_name": "",
"kernel_name": "add",
"problem_size": 4096,
"tune_params_keys": ["block_size_x", "scale"],
"tune_params": {"block_size_x": [1, 3, 2048, 4], "scale": [0.5, 1.5]},
"objective": ["time"],
"cache": {
"1,0.5": {"block_size_x": 1, "scale": 0.5, "time": 0.047, "times": [0.05, 0.045], "compile_time": 2437.2},
"3,0.5": {"block_size_x": 3, "scale": 0.5, "__error__": "CompilationFailedConfig", "compile_time": 1004.3},
"2048,0.5": {"block_size_x": 2048, "scale": 0.5, "__error__": "InvalidConfig"},
"4,0.5": {"block_size_x": 4, "scale": 0.5, "__error__": "RuntimeFailedConfig"},
"4,1.5": {"block_size_x": 4, "scale": 1.5, "time": "ErrorConfig"},)";
  const search::Recording r = recording_from_kernel_tuner(cache, {});
  REQUIRE(r.trials.size() == 5);
  CHECK(r.trials[0].ok());
  CHECK(r.trials[1].status == "compile_failed");
  CHECK(r.trials[1].reason == "Kernel Tuner: CompilationFailedConfig");
  CHECK(r.trials[2].status == "exceeds_device_limits");
  CHECK(r.trials[3].status == "launch_failed");
  CHECK(r.trials[4].status == "launch_failed");
  CHECK(r.space.axis("scale").labels == std::vector<std::string>{"0.5", "1.5"});

  // Back out: the float parameter is a float again, keys as Kernel Tuner joins them.
  const auto out = kernel_tuner_cache(r);
  CHECK(out.at("tune_params").at("scale") == nlohmann::ordered_json::array({0.5, 1.5}));
  CHECK(out.at("tune_params").at("scale")[0].is_number_float());
  CHECK(out.at("cache").at("1,0.5").at("scale").is_number_float());
  CHECK(out.at("cache").at("3,0.5").at("time") == "CompilationFailedConfig");
  CHECK(out.at("cache").at("2048,0.5").at("time") == "InvalidConfig");

  // A marker Kernel Tuner does not write is the file's error, naming the entry.
  const std::string odd = R"({"tune_params": {"bx": [32]}, "cache": {"32": {"bx": 32, "__error__": "Oops"}}})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(odd, {}),
                       doctest::Contains("cache entry \"32\".__error__: 'Oops' is not a Kernel Tuner failure"),
                       std::invalid_argument);
  const std::string neither = R"({"tune_params": {"bx": [32]}, "cache": {"32": {"bx": 32}}})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(neither, {}), doctest::Contains("no \"time\" and no \"__error__\""),
                       std::invalid_argument);
}

TEST_CASE("kernel tuner: booleans and strings keep their types; a cache key joins values as Python prints them") {
  const std::string cache = R"({"tune_params": {"use_shared": [true, false], "layout": ["aos", "1x"]},
    "cache": {"True,aos": {"use_shared": true, "layout": "aos", "time": 1.0}}})";
  const auto out = kernel_tuner_cache(recording_from_kernel_tuner(cache, {}));
  CHECK(out.at("tune_params").at("use_shared") == nlohmann::ordered_json::array({true, false}));
  CHECK(out.at("tune_params").at("layout") == nlohmann::ordered_json::array({"aos", "1x"}));
  CHECK(out.at("cache").contains("True,aos"));
}

TEST_CASE("kernel tuner: a key given twice (an entry, or a field of one) is refused, open or closed") {
  const std::string head = R"({
"device_name": "NVIDIA A100",
"kernel_name": "vector_add",
"problem_size": 1000,
"tune_params_keys": ["block_size_x", "use_shared"],
"tune_params": {"block_size_x": [128, 64], "use_shared": [true, false]},
"objective": "time",
"cache": {
"128,True": {"block_size_x": 128, "use_shared": true, "time": 0.5},
"128,True": {"block_size_x": 128, "use_shared": true, "time": 0.7})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(head + "\n}\n}", {}),
                       doctest::Contains("field 'cache.128,True': the key \"128,True\" appears twice"), InputError);
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(head + ",", {}),
                       doctest::Contains("the key \"128,True\" appears twice"), InputError);
}

TEST_CASE("kernel tuner: one configuration under two keys, or an empty kernel name, is refused (no unreadable recording)") {
  const std::string two_keys = R"({"kernel_name": "k", "tune_params": {"bx": [32, 64]}, "cache": {
      "32": {"bx": 32, "time": 0.25}, "32 ": {"bx": 32, "time": 0.3}}})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(two_keys, {}),
                       doctest::Contains("cache entry \"32 \": the same configuration as cache entry \"32\""),
                       std::invalid_argument);
  const std::string unnamed = R"({"kernel_name": "", "tune_params": {"bx": [32]}, "cache": {"32": {"bx": 32, "time": 0.25}}})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(unnamed, {}), doctest::Contains("\"kernel_name\" is empty"),
                       std::invalid_argument);
  ImportOptions named;
  named.template_name = "mine";
  CHECK(recording_from_kernel_tuner(unnamed, named).template_name == "mine");
}

TEST_CASE("kernel tuner: an imported cache's problem_size list goes back out as it came") {
  const std::string cache = R"({"kernel_name": "k", "problem_size": [1024, 768], "tune_params": {"bx": [32]},
      "cache": {"32": {"bx": 32, "time": 0.25}}})";
  const search::Recording rec = recording_from_kernel_tuner(cache, {});
  CHECK(kernel_tuner_cache(rec).at("problem_size") == nlohmann::ordered_json::array({1024, 768}));
}

TEST_CASE("kernel tuner: a value of the wrong type is the file's error, naming the field") {
  // Found by fuzz_kernel_tuner_import: a device_name that is not a string escaped as nlohmann's type_error.
  const std::string cache = R"({"device_name": ["A100"], "tune_params": {"bx": [32]}, "cache": {"32": {"bx": 32, "time": 0.25}}})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(cache, {}), doctest::Contains("device_name: must be a string"),
                       std::invalid_argument);
  const std::string t4 = R"({"results": [{"configuration": {"bx": 32}, "invalidity": "correct", "measurements": [7]}]})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(t4, {}), doctest::Contains("results[0].measurements[]"),
                       std::invalid_argument);
  const std::string bad_time = R"({"results": [{"configuration": {"bx": 32}, "invalidity": "correct",
      "measurements": [{"name": "time", "value": 1, "unit": 3}]}]})";
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(bad_time, {}), doctest::Contains("unit: must be a string"),
                       std::invalid_argument);
}

TEST_CASE("kernel tuner: T4 results keep the evaluation order, take the first of a revisited config, convert units") {
  const std::string t4 = R"({"schema_version": "1.0.0", "results": [
    {"configuration": {"bx": 32, "by": 4}, "invalidity": "correct",
     "measurements": [{"name": "time", "value": 2.0, "unit": "ms"}]},
    {"configuration": {"bx": 64, "by": 4}, "invalidity": "compile", "measurements": []},
    {"configuration": {"bx": 32, "by": 4}, "invalidity": "correct",
     "measurements": [{"name": "time", "value": 9.0, "unit": "ms"}]},
    {"configuration": {"bx": 64, "by": 8}, "invalidity": "correct",
     "measurements": [{"name": "time", "value": 1500, "unit": "us"}]}]})";
  const search::Recording r = recording_from_kernel_tuner(t4, {.template_name = "fdtd", .device_name = "H100"});
  REQUIRE(r.trials.size() == 3);
  CHECK(*r.trials[0].time_s == doctest::Approx(2e-3));
  CHECK(r.trials[1].status == "compile_failed");
  CHECK(*r.trials[2].time_s == doctest::Approx(1.5e-3));
  CHECK(r.template_name == "fdtd");
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner(R"({"results": [{"configuration": {"a": 1}, "invalidity": "correct"}]})", {}),
                       doctest::Contains("results[0]: a correct result needs a \"time\" measurement"), std::invalid_argument);
  CHECK_THROWS_WITH_AS((void)recording_from_kernel_tuner("{\"x\": [1,\n2", {}), doctest::Contains("line"),
                       std::invalid_argument);
}

TEST_CASE("kernel tuner: memtune import and export on files") {
  const auto dir = std::filesystem::temp_directory_path() / "memtune-kt-cli";
  std::filesystem::create_directories(dir);
  const std::string rec = (dir / "rec.json").string(), kt = (dir / "kt.json").string(), back = (dir / "back.json").string();
  search::save_recording(small_recording(), rec);
  auto r = testing::run_cli({"export", rec.c_str(), "--format", "kernel_tuner", "-o", kt.c_str()});
  CHECK(r.code == 0);
  r = testing::run_cli({"import", kt.c_str(), "-o", back.c_str()});
  CHECK(r.code == 0);
  CHECK(r.out.find("4 trials (2 ok)") != std::string::npos);
  CHECK(search::load_recording(back).trials.size() == 4);
  std::ofstream(dir / "junk.json") << "{\"cache\": 3}";
  r = testing::run_cli({"import", (dir / "junk.json").string().c_str(), "-o", back.c_str()});
  CHECK(r.code == cli::kExitError);
  CHECK(r.err.find("junk.json: not a Kernel Tuner cache") != std::string::npos);
  // The JSON reader's own errors name the file too, not a placeholder.
  std::ofstream(dir / "twice.json") << R"({"cache": {}, "cache": {}})";
  r = testing::run_cli({"import", (dir / "twice.json").string().c_str(), "-o", back.c_str()});
  CHECK(r.code == cli::kExitError);
  CHECK(r.err.find("twice.json:1: field 'cache': the key \"cache\" appears twice") != std::string::npos);
  std::filesystem::remove_all(dir);
}
