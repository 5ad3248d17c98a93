#include <memtune/profile/profile_store.hpp>

#include <doctest/doctest.h>

#include <limits>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
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
  CHECK_FALSE(back.resources); // stores written before resources were kept
  CHECK_FALSE(back.to_json().contains("resources"));

  // The compiled resources the model needs to rank a kept configuration at another size.
  ProfileEntry with = e;
  with.resources = KernelResources{.registers = 40, .static_smem_bytes = 1024, .spill_store_bytes = 8};
  const ProfileEntry again = ProfileEntry::from_json(with.to_json());
  REQUIRE(again.resources);
  CHECK(again.resources->registers == 40);
  CHECK(again.resources->static_smem_bytes == 1024);
  CHECK(again.resources->spill_store_bytes == 8);
  CHECK(again.resources->spill_load_bytes == 0);

  // The kernel's fingerprint: written when known, absent in stores written before.
  CHECK(back.kernel_fingerprint.empty());
  CHECK_FALSE(e.to_json().contains("kernel_fingerprint"));
  ProfileEntry versioned = e;
  versioned.kernel_fingerprint = "0123456789abcdef0123456789abcdef";
  CHECK(ProfileEntry::from_json(versioned.to_json()).kernel_fingerprint == versioned.kernel_fingerprint);
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

TEST_CASE("wrong values name the file, the line and the field, and the store stays as it was") {
  const auto file = fresh_file();
  auto error_for = [&](const std::string& text) {
    {
      std::ofstream out(file);
      out << text;
    }
    std::string message;
    try {
      ProfileStore(file).save(entry(1 << 20, 64));
    } catch (const ProfileError& e) {
      message = e.what();
    }
    CHECK(slurp(file) == text); // never overwritten
    CHECK(message.find(file.string() + ":") == 0);
    CHECK(message.find("left untouched") != std::string::npos);
    return message;
  };
  // A wrongly typed entry (it was "[json.exception.type_error.304] ..." and exit 2).
  const std::string typed = error_for("{\n  \"schema_version\": 1,\n  \"entries\": [\n    {\n      \"device\": \"H100\",\n"
                                      "      \"template\": \"filter\", \"problem\": {}, \"config\": {}\n    }\n  ]\n}\n");
  CHECK(typed.find(":5: field 'entries[0].device': expected an object, got a string") != std::string::npos);
  CHECK(error_for("{\"schema_version\": 1, \"entries\": [],\n \"x\": 1e400}").find(":2: not valid JSON") !=
        std::string::npos);
  CHECK(error_for("{\"schema_version\": \"1\", \"entries\": []}").find("field 'schema_version': expected an integer, got \"1\"") !=
        std::string::npos);
  CHECK(error_for("{\"schema_version\": 1.5, \"entries\": []}").find("expected an integer, got 1.5") != std::string::npos);
  const std::string base = entry(1, 1).to_json().dump();
  auto with = [&](const std::string& key, const std::string& value) {
    nlohmann::json e = nlohmann::json::parse(base);
    e[key] = nlohmann::json::parse(value);
    return error_for("{\"schema_version\": 1, \"entries\": [" + e.dump() + "]}");
  };
  CHECK(with("time_s", "-1").find("field 'entries[0].time_s'") != std::string::npos);
  CHECK(with("runner_ups", R"([{"config": {"block_size": 64}, "time_s": 0}])")
            .find("field 'entries[0].runner_ups[0].time_s': must be a positive number of seconds") != std::string::npos);
  CHECK(with("runner_ups", R"([{"time_s": 1e-6}])").find("field 'entries[0].runner_ups[0]") != std::string::npos);
  CHECK(with("runner_ups", R"([7])").find("field 'entries[0].runner_ups[0]'") != std::string::npos);
  CHECK(with("resources", R"({"registers": 300})").find("field 'entries[0].resources.registers': expected an integer in [0, 255]") !=
        std::string::npos);
  CHECK(with("resources", R"({"static_smem_bytes": -1})").find("field 'entries[0].resources.static_smem_bytes'") !=
        std::string::npos);
  CHECK(with("runner_ups", R"([{"config": {"block_size": 64}, "time_s": 1e-6, "resources": [1]}])")
            .find("field 'entries[0].runner_ups[0].resources'") != std::string::npos);
  CHECK(error_for("{\"schema_version\": 1, \"entries\": [" + base + ",\n" + base + "]}")
            .find(":2: field 'entries[1]': the same GPU, kernel and problem as entries[0]") != std::string::npos);
  CHECK(with("mode", "\"guessed\"").find("field 'entries[0].mode'") != std::string::npos);
  CHECK(with("kernel_fingerprint", "\"abc\"")
            .find("field 'entries[0].kernel_fingerprint': expected the 32 hexadecimal digits memtune writes") !=
        std::string::npos);
  CHECK(with("kernel_fingerprint", "7").find("field 'entries[0].kernel_fingerprint'") != std::string::npos);
  CHECK(with("problem", "{\"n\": 1.5}").find("field 'entries[0].problem.n'") != std::string::npos);
  CHECK(with("device", R"({"name": "x", "compute_capability": "9", "sm_count": 1})")
            .find("field 'entries[0].device.compute_capability'") != std::string::npos);
  CHECK(with("device", R"({"name": "x", "compute_capability": "9.0", "sm_count": 4294967428})")
            .find("field 'entries[0].device.sm_count'") != std::string::npos);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("an empty file is an empty store") {
  const auto file = fresh_file();
  std::ofstream(file).flush();
  CHECK(ProfileStore(file).entries().empty());
  ProfileStore(file).save(entry(1 << 20, 64));
  CHECK(ProfileStore(file).entries().size() == 1);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("a folder is refused without leaving a lock file; a link's target is updated") {
  const auto dir = fresh_file().replace_extension("");
  std::filesystem::create_directories(dir / "real");
  CHECK_THROWS_WITH_AS(ProfileStore(dir).save(entry(1, 64)), doctest::Contains("is a directory"), ProfileError);
  CHECK_THROWS_WITH_AS(ProfileStore(dir.string() + "/newdir/").save(entry(1, 64)), doctest::Contains("names a folder"),
                       ProfileError);
  CHECK_FALSE(std::filesystem::exists(dir.string() + ".lock"));
  CHECK_FALSE(std::filesystem::exists(dir / "newdir"));

  const auto target = dir / "real" / "store.json";
  ProfileStore(target).save(entry(1 << 20, 64));
  std::filesystem::create_symlink(std::filesystem::path("real") / "store.json", dir / "link.json");
  ProfileStore(dir / "link.json").save(entry(1 << 24, 128));
  CHECK(std::filesystem::is_symlink(dir / "link.json"));
  CHECK(ProfileStore(target).entries().size() == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("0-byte temporaries of killed writers are removed by the next save") {
  const auto file = fresh_file();
  const auto folder = file.parent_path();
  // memtune 0.1.0's "<store>.tmp<random>" and a dead process's "<store>.tmp-<pid>-<n>".
  std::ofstream(file.string() + ".tmp123456789").flush();
  std::ofstream(file.string() + ".tmp-2147483646-3").flush();
  ProfileStore(file).save(entry(1 << 20, 64));
  CHECK_FALSE(std::filesystem::exists(file.string() + ".tmp123456789"));
  CHECK_FALSE(std::filesystem::exists(file.string() + ".tmp-2147483646-3"));
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("8 processes saving to one store at once lose no entry") {
  const auto file = fresh_file();
  constexpr int kProcesses = 8, kEach = 10;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      try {
        ProfileStore store(file);
        for (int i = 0; i < kEach; ++i) store.save(entry(1000 * (p + 1) + i, 64));
      } catch (...) {
        _exit(1);
      }
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

// A writer reports each entry on a pipe once save() has returned; it is killed
// with SIGKILL after a random delay, in the middle of a save or between two.
// Every entry reported saved must be in the store, which must always parse.
TEST_CASE("writers killed with SIGKILL at random moments 100 times: the store parses and loses no saved entry") {
  const auto file = fresh_file();
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<int> delay_us(0, 15000);
  std::set<std::int64_t> saved;
  int killed_mid_run = 0;
  for (int round = 0; round < 100; ++round) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      try {
        ProfileStore store(file);
        for (std::int64_t i = 0;; ++i) {
          const std::int64_t n = 1000000 * (round + 1) + i;
          store.save(entry(n, 64));
          if (::write(fds[1], &n, sizeof n) != sizeof n) _exit(2);
        }
      } catch (...) {
        _exit(1);
      }
    }
    ::close(fds[1]);
    ::usleep(static_cast<useconds_t>(delay_us(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    killed_mid_run += WIFSIGNALED(status) ? 1 : 0;
    std::int64_t n = 0;
    while (::read(fds[0], &n, sizeof n) == sizeof n) saved.insert(n);
    ::close(fds[0]);

    std::set<std::int64_t> present;
    REQUIRE_NOTHROW(
        [&] {
          for (const auto& e : ProfileStore(file).entries()) present.insert(e.problem.at("n"));
        }());
    for (const std::int64_t s : saved)
      if (!present.count(s)) FAIL_CHECK("entry n=" << s << " was saved before round " << round << " and is lost");
  }
  CHECK(killed_mid_run == 100);
  MESSAGE(saved.size() << " entries saved by 100 killed writers, none lost");
  // The next save removes what killed writers left behind.
  ProfileStore(file).save(entry(1, 64));
  std::size_t leftovers = 0;
  for (const auto& f : std::filesystem::directory_iterator(file.parent_path()))
    leftovers += f.path().filename().string().rfind(file.filename().string() + ".tmp", 0) == 0;
  CHECK(leftovers == 0);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("an entry's members this memtune does not know are kept when the store is rewritten") {
  const auto file = std::filesystem::temp_directory_path() / ("memtune-unknown-" + std::to_string(::getpid()) + ".json");
  ProfileStore store(file);
  store.save(entry(1 << 24, 256));
  // A newer memtune (or a person) added members to the entry and to the document.
  nlohmann::json doc;
  std::ifstream(file) >> doc;
  doc["entries"][0]["note"] = "checked by hand";
  doc["entries"][0]["l2_policy"] = {{"persist", true}};
  doc["comment"] = "top-level";
  std::ofstream(file, std::ios::trunc) << doc.dump(2);
  store.save(entry(1 << 20, 128)); // another key: the first entry is rewritten as it was read
  nlohmann::json after;
  std::ifstream(file) >> after;
  REQUIRE(after["entries"].size() == 2);
  CHECK(after["entries"][0]["note"] == "checked by hand");
  CHECK(after["entries"][0]["l2_policy"]["persist"] == true);
  CHECK(after["comment"] == "top-level");
  CHECK(after["entries"][1].count("note") == 0);
  // A known member is never shadowed by a stale unknown copy.
  ProfileEntry e = ProfileEntry::from_json(after["entries"][0]);
  CHECK(e.unknown.count("config") == 0);
  CHECK(e.to_json()["config"] == entry(1 << 24, 256).config);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("an entry with an infinite GB/s is not saved: JSON would write a null the store cannot read back") {
  const auto file = fresh_file();
  ProfileStore(file).save(entry(1 << 20, 64));
  const std::string before = slurp(file);
  ProfileEntry bad = entry(1 << 21, 64);
  bad.gbps = std::numeric_limits<double>::infinity();
  std::string message;
  try {
    ProfileStore(file).save(bad);
  } catch (const ProfileError& e) {
    message = e.what();
  }
  CHECK(message.find("not a finite number") != std::string::npos);
  CHECK(slurp(file) == before);
  CHECK(ProfileStore(file).entries().size() == 1);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}

TEST_CASE("an entry without a time is written without time_s and read back as 0; an old store's 0.0 still reads") {
  const auto file = fresh_file();
  ProfileEntry untimed = entry(1 << 20, 64);
  untimed.time_s = 0;
  ProfileStore(file).save(untimed);
  CHECK(slurp(file).find("\"time_s\"") == std::string::npos);
  REQUIRE(ProfileStore(file).entries().size() == 1);
  CHECK(ProfileStore(file).entries().front().time_s == 0);
  nlohmann::json old = untimed.to_json();
  old["time_s"] = 0.0; // as memtune wrote it before
  { std::ofstream(file) << nlohmann::json{{"schema_version", 1}, {"entries", {old}}}.dump(2); }
  CHECK(ProfileStore(file).entries().front().time_s == 0);
  std::filesystem::remove(file);
  std::filesystem::remove(file.string() + ".lock");
}
