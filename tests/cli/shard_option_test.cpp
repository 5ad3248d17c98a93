#include "app.hpp"
#include "run_cli.hpp"
#include "shard_option.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace memtune::cli;
using Run = memtune::testing::CliRun;
using memtune::testing::run_cli;
using memtune::search::Shard;

namespace {

Environment env(std::map<std::string, std::string> vars) {
  auto held = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [held](const char* name) -> const char* {
    const auto it = held->find(name);
    return it == held->end() ? nullptr : it->second.c_str();
  };
}

} // namespace

TEST_CASE("--shard wins; without it a Slurm job array's task picks the shard; outside an array, none") {
  const auto array = env({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "4"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                          {"SLURM_ARRAY_TASK_COUNT", "4"}});
  const auto flag = resolve_shard("3/8", array);
  REQUIRE(flag.has_value());
  CHECK(flag->shard == Shard{3, 8});
  CHECK(flag->source == "--shard 3/8");
  const auto slurm = resolve_shard("", array);
  REQUIRE(slurm.has_value());
  CHECK(slurm->shard == Shard{2, 4}); // task 5 of 4..7
  CHECK(slurm->source == "from the Slurm job array: SLURM_ARRAY_TASK_ID=5 of tasks 4-7");
  CHECK_FALSE(resolve_shard("", env({})).has_value());
  CHECK_FALSE(resolve_shard("", env({{"SLURM_JOB_ID", "12"}})).has_value());
}

TEST_CASE("a job array with a step, or with only MIN and COUNT, maps its tasks onto 1..N") {
  const auto stepped = resolve_shard("", env({{"SLURM_ARRAY_TASK_ID", "10"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                                             {"SLURM_ARRAY_TASK_MAX", "15"}, {"SLURM_ARRAY_TASK_STEP", "5"},
                                             {"SLURM_ARRAY_TASK_COUNT", "4"}}));
  REQUIRE(stepped.has_value());
  CHECK(stepped->shard == Shard{3, 4}); // 0, 5, 10, 15
  CHECK(stepped->source.find("tasks 0-15:5") != std::string::npos);
  const auto counted =
      resolve_shard("", env({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}));
  REQUIRE(counted.has_value());
  CHECK(counted->shard == Shard{1, 2});
}

TEST_CASE("bad shards and arrays that cannot be split are refused with what to do") {
  CHECK_THROWS_WITH_AS(resolve_shard("5/4", env({})), doctest::Contains("--shard: shard 5/4"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(resolve_shard("two/4", env({})), doctest::Contains("--shard"), std::invalid_argument);
  // --array=1,3,8: three tasks, not evenly spaced.
  CHECK_THROWS_WITH_AS(resolve_shard("", env({{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"},
                                              {"SLURM_ARRAY_TASK_MAX", "8"}, {"SLURM_ARRAY_TASK_COUNT", "3"}})),
                       doctest::Contains("not evenly spaced"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(resolve_shard("", env({{"SLURM_ARRAY_TASK_ID", "3"}})),
                       doctest::Contains("without SLURM_ARRAY_TASK_MIN"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(resolve_shard("", env({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                                              {"SLURM_ARRAY_TASK_MAX", "3"}})),
                       doctest::Contains("$SLURM_ARRAY_TASK_ID='x'"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(resolve_shard("", env({{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "0"},
                                              {"SLURM_ARRAY_TASK_MAX", "3"}})),
                       doctest::Contains("not one of the array's tasks"), std::invalid_argument);
}

TEST_CASE("memtune filter over 4 shards records disjoint parts whose union is the unsharded run; the header says so") {
  const auto dir = std::filesystem::temp_directory_path() / ("memtune-shards-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(dir);
  const std::string cache = (dir / "cache").string();
  const char* only = "block_size=256,packing=2,items=4";
  auto configs_in = [](const std::filesystem::path& file) {
    std::ifstream in(file);
    const auto j = nlohmann::json::parse(in);
    std::set<std::string> out;
    for (const auto& t : j.at("trials")) out.insert(t.at("config").dump());
    return out;
  };
  const std::string whole_file = (dir / "whole.json").string();
  const Run whole = run_cli({"filter", "--n", "1M", "--target", "k20", "-q", "--only", only, "--cache-dir",
                             cache.c_str(), "--record", whole_file.c_str()});
  REQUIRE(whole.code == kExitOk);
  const auto all = configs_in(whole_file);
  CHECK(all.size() >= 8);
  std::set<std::string> united;
  std::size_t total = 0;
  for (int i = 1; i <= 4; ++i) {
    const std::string shard = std::to_string(i) + "/4";
    const std::string file = (dir / ("shard" + std::to_string(i) + ".json")).string();
    const Run part = run_cli({"filter", "--n", "1M", "--target", "k20", "-q", "--only", only, "--cache-dir",
                              cache.c_str(), "--record", file.c_str(), "--shard", shard.c_str()});
    // An empty shard is possible on a tiny space: then nothing succeeded and the exit code says so.
    const auto mine = configs_in(file);
    if (!mine.empty()) CHECK(part.code == kExitOk);
    CHECK(part.out.find("  shard " + shard + " (--shard " + shard + "): " + std::to_string(mine.size()) + " of the " +
                        std::to_string(all.size()) + " valid configurations") != std::string::npos);
    total += mine.size();
    united.insert(mine.begin(), mine.end());
  }
  CHECK(total == united.size()); // disjoint
  CHECK(united == all);          // complete
  std::filesystem::remove_all(dir);
}

TEST_CASE("a Slurm array task shards a run by itself; --save with a shard and a bad --shard are usage errors") {
  ::setenv("SLURM_ARRAY_TASK_ID", "1", 1);
  ::setenv("SLURM_ARRAY_TASK_MIN", "0", 1);
  ::setenv("SLURM_ARRAY_TASK_MAX", "1", 1);
  const Run slurm = run_cli({"filter", "--n", "1M", "--target", "k20", "-q", "--strategy", "random", "--budget", "2"});
  const Run save = run_cli({"filter", "--n", "1M", "--target", "k20", "-q", "--save", "never-written.json"});
  const Run whole = run_cli({"filter", "--n", "1M", "--target", "k20", "-q", "--strategy", "random", "--budget", "2",
                             "--shard", "1/1"});
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_ARRAY_TASK_MIN");
  ::unsetenv("SLURM_ARRAY_TASK_MAX");
  CHECK(slurm.code == kExitOk);
  CHECK(slurm.out.find("  shard 2/2 (from the Slurm job array: SLURM_ARRAY_TASK_ID=1 of tasks 0-1)") != std::string::npos);
  CHECK(save.code == kExitUsage);
  CHECK(save.err.find("--save would store one part's best as the best") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists("never-written.json"));
  CHECK(whole.code == kExitOk);
  CHECK(whole.out.find("shard") == std::string::npos);
  const Run bad = run_cli({"filter", "--n", "1M", "--target", "k20", "--shard", "0/3"});
  CHECK(bad.code == kExitUsage);
  CHECK(bad.err.find("--shard: shard 0/3") != std::string::npos);
}
