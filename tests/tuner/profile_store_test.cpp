#include <memtune/profile_store.hpp>

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace memtune;

namespace {

std::filesystem::path fresh_file() {
  std::random_device rd;
  return std::filesystem::temp_directory_path() / ("memtune-profiles-" + std::to_string(rd()) + ".json");
}

ProfileEntry entry(std::int64_t n, int block, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  ProfileEntry e;
  e.device = {gpu, 9, 0, 132};
  e.template_name = "filter";
  e.problem = {{"n", n}, {"taps", 21}};
  e.config = {{"block_size", block}, {"packing", 1}};
  e.time_s = 5e-5;
  e.gbps = 2600;
  e.rationale = "because";
  e.tool = "memtune test";
  return e;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("profile entries round-trip through JSON") {
  const ProfileEntry e = entry(1 << 24, 256);
  const ProfileEntry back = ProfileEntry::from_json(e.to_json());
  CHECK(back.device == e.device);
  CHECK(back.problem == e.problem);
  CHECK(back.config == e.config);
  CHECK(back.time_s == doctest::Approx(e.time_s));
  CHECK(back.rationale == e.rationale);
}

TEST_CASE("save adds and replaces by key; lookup is exact, then nearest size") {
  const auto file = fresh_file();
  ProfileStore store(file);
  CHECK(store.entries().empty());
  store.save(entry(1 << 24, 256));
  store.save(entry(1 << 20, 128));
  store.save(entry(1 << 24, 512)); // same key: replaces
  const auto all = store.entries();
  CHECK(all.size() == 2);

  const DeviceFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132};
  auto exact = store.lookup(h100, "filter", {{"n", 1 << 24}, {"taps", 21}}, {"n"});
  REQUIRE(exact);
  CHECK(exact->entry.config["block_size"] == 512);
  CHECK(exact->match == ProfileMatch::exact);
  auto near = store.lookup(h100, "filter", {{"n", 3 << 20}, {"taps", 21}}, {"n"}); // 3M: nearer 1M than 16M in log
  REQUIRE(near);
  CHECK(near->entry.problem.at("n") == (1 << 20));
  CHECK(near->match == ProfileMatch::nearest_size);
  CHECK_FALSE(store.lookup(h100, "filter", {{"n", 1 << 24}, {"taps", 7}}, {"n"})); // taps is not a size
  CHECK_FALSE(store.lookup({"Tesla K20c", 3, 5, 13}, "filter", {{"n", 1 << 24}, {"taps", 21}}, {"n"}));
  std::filesystem::remove(file);
}

TEST_CASE("matches rank this device's entries by size, then the same GPU model's; never another model's") {
  const auto file = fresh_file();
  ProfileStore store(file);
  store.save(entry(1 << 24, 256));                               // this device, 16M
  store.save(entry(1 << 20, 128));                               // this device, 1M
  ProfileEntry slice = entry(1 << 22, 64);                       // same name and cc, 66 SMs, 4M
  slice.device.sm_count = 66;
  store.save(slice);
  store.save(entry(1 << 22, 1024, "NVIDIA A100-SXM4-80GB"));     // another model (cc taken as 9.0 by the helper)

  const DeviceFingerprint h100{"NVIDIA H100 80GB HBM3", 9, 0, 132};
  const auto hits = store.matches(h100, "filter", {{"n", 1 << 22}, {"taps", 21}}, {"n"});
  REQUIRE(hits.size() == 3);
  // 4M: 1M and 16M are both log(4) away on this device (first saved first), then the slice.
  CHECK(hits[0].match == ProfileMatch::nearest_size);
  CHECK(hits[1].match == ProfileMatch::nearest_size);
  CHECK(hits[0].distance == doctest::Approx(std::log(4.0)));
  CHECK(hits[2].match == ProfileMatch::same_gpu_model);
  CHECK(hits[2].entry.config["block_size"] == 64);
  CHECK(hits[2].distance == 0.0);
  CHECK(std::string(to_string(hits[2].match)) == "same GPU model");

  // A device with no entry of its own sees the model's entries, nearest first.
  const auto other_board = store.lookup({"NVIDIA H100 80GB HBM3", 9, 0, 114}, "filter", {{"n", 3 << 19}, {"taps", 21}}, {"n"});
  REQUIRE(other_board);
  CHECK(other_board->match == ProfileMatch::same_gpu_model);
  CHECK(other_board->entry.problem.at("n") == (1 << 20)); // 1.5M: 1M is nearer than 4M
  CHECK_FALSE(store.lookup({"NVIDIA H100 80GB HBM3", 8, 0, 132}, "filter", {{"n", 1 << 22}, {"taps", 21}}, {"n"}));
  std::filesystem::remove(file);
}

TEST_CASE("a corrupt store is an error naming file and line, and is never overwritten") {
  const auto file = fresh_file();
  {
    std::ofstream out(file);
    out << "{\n  \"schema_version\": 1,\n  \"entries\": [\n    {\"device\": }\n  ]\n}\n";
  }
  const std::string before = slurp(file);
  ProfileStore store(file);
  CHECK_THROWS_WITH_AS(store.entries(), doctest::Contains(file.string().c_str()), ProfileError);
  CHECK_THROWS_WITH_AS(store.entries(), doctest::Contains("line 4"), ProfileError);
  CHECK_THROWS_AS(store.save(entry(1 << 24, 256)), ProfileError);
  CHECK(slurp(file) == before);
  std::filesystem::remove(file);
}

TEST_CASE("an entry with a missing field names the entry and the field") {
  const auto file = fresh_file();
  {
    std::ofstream out(file);
    out << R"({"schema_version": 1, "entries": [{"template": "filter"}]})";
  }
  CHECK_THROWS_WITH_AS(ProfileStore(file).entries(), doctest::Contains("entry 0: field 'device'"), ProfileError);
  std::filesystem::remove(file);
}

TEST_CASE("a store of another schema version is refused") {
  const auto file = fresh_file();
  {
    std::ofstream out(file);
    out << R"({"schema_version": 99, "entries": []})";
  }
  CHECK_THROWS_WITH_AS(ProfileStore(file).entries(), doctest::Contains("schema_version 99"), ProfileError);
  std::filesystem::remove(file);
}

TEST_CASE("processes saving to one store at once lose no entry") {
  const auto file = fresh_file();
  constexpr int kProcesses = 4, kEach = 10;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ProfileStore store(file);
      for (int i = 0; i < kEach; ++i) store.save(entry(1000 * (p + 1) + i, 64));
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(ProfileStore(file).entries().size() == kProcesses * kEach);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}
