#include <memtune/profile_store.hpp>

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

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
  CHECK(exact->config["block_size"] == 512);
  auto near = store.lookup(h100, "filter", {{"n", 3 << 20}, {"taps", 21}}, {"n"}); // 3M: nearer 1M than 16M in log
  REQUIRE(near);
  CHECK(near->problem.at("n") == (1 << 20));
  CHECK_FALSE(store.lookup(h100, "filter", {{"n", 1 << 24}, {"taps", 7}}, {"n"})); // taps is not a size
  CHECK_FALSE(store.lookup({"Tesla K20c", 3, 5, 13}, "filter", {{"n", 1 << 24}, {"taps", 21}}, {"n"}));
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
  CHECK_THROWS_WITH_AS(ProfileStore(file).entries(), doctest::Contains("field 'entries[0].device': missing"),
                       ProfileError);
  std::filesystem::remove(file);
}

TEST_CASE("a store of another schema version is refused") {
  const auto file = fresh_file();
  {
    std::ofstream out(file);
    out << R"({"schema_version": 99, "entries": []})";
  }
  CHECK_THROWS_WITH_AS(ProfileStore(file).entries(), doctest::Contains("field 'schema_version'"), ProfileError);
  CHECK_THROWS_WITH_AS(ProfileStore(file).entries(), doctest::Contains("the store has 99"), ProfileError);
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
