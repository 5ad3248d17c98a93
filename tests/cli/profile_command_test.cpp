#include "profile_tools.hpp"
#include "run_cli.hpp"

#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

using namespace memtune;
using memtune::testing::run_cli;

namespace {

std::string asset(const std::string& name) { return std::string(MEMTUNE_TEST_ASSETS_DIR) + "/profiles/" + name; }

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("memtune-profile-" + std::to_string(std::random_device{}()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

ProfileEntry entry(const std::string& device, std::int64_t n, double time_s, const std::string& mode = "measured") {
  ProfileEntry e;
  e.device = {device, 9, 0, 132};
  e.template_name = "filter";
  e.problem = {{"n", n}, {"taps", 21}};
  e.config = {{"block_size", 256}};
  e.mode = mode;
  e.time_s = time_s;
  return e;
}

} // namespace

TEST_CASE("profile list and show: what a store holds, and one entry in full") {
  auto r = run_cli({"profile", "list", asset("a.json").c_str(), asset("b.json").c_str()});
  CHECK(r.code == 0);
  CHECK(r.out.find("a.json: 3 entries") != std::string::npos);
  CHECK(r.out.find("NVIDIA A100-SXM4-80GB") != std::string::npos);
  CHECK(r.out.find("2025-01-10T10:00:00Z") != std::string::npos);
  r = run_cli({"profile", "list", asset("a.json").c_str(), "--format", "json"});
  CHECK(nlohmann::json::parse(r.out).at("entries").size() == 3);
  r = run_cli({"profile", "show", asset("a.json").c_str(), "--index", "0"});
  CHECK(r.code == 0);
  CHECK(r.out.find("filter n=16777216 taps=21") != std::string::npos);
  CHECK(r.out.find("runner-up") != std::string::npos);
  r = run_cli({"profile", "show", asset("a.json").c_str(), "--template", "filter"});
  CHECK(r.code == cli::kExitUsage); // two filter entries: it names them
  CHECK(r.err.find("2 entries match") != std::string::npos);
  r = run_cli({"profile", "show", asset("a.json").c_str(), "--index", "3"}); // numbered 0 to 2
  CHECK(r.code == cli::kExitUsage);
  CHECK(r.err.find("--index 3: ") != std::string::npos);
  CHECK(r.err.find("holds 3 entries, numbered 0 to 2") != std::string::npos);
  r = run_cli({"profile", "show", asset("a.json").c_str(), "--index", "-1"}); // not "no index"
  CHECK(r.code == cli::kExitUsage);
  CHECK(r.err.find("--index") != std::string::npos);
}

TEST_CASE("profile show: whether the entry was tuned for the kernel memtune holds now") {
  TempDir dir;
  const std::string store = dir.file("p.json");
  ProfileEntry e = entry("NVIDIA H100 80GB HBM3", 1 << 20, 5e-6);
  const auto shown = [&](const std::string& kernel_fingerprint) {
    e.kernel_fingerprint = kernel_fingerprint;
    ProfileStore(store).save(e);
    const auto r = run_cli({"profile", "show", store.c_str(), "--index", "0"});
    CHECK(r.code == 0);
    return r.out;
  };
  const std::string now = templates::filter_description().fingerprint();
  CHECK(shown("").find("kernel version: not recorded") != std::string::npos);
  CHECK(shown(now).find("kernel fingerprint " + now + ": the same as this memtune's built-in filter") !=
        std::string::npos);
  const std::string other(32, '7');
  CHECK(shown(other).find("kernel fingerprint " + other + ": this memtune's built-in filter is " + now) !=
        std::string::npos);
  const auto json = run_cli({"profile", "show", store.c_str(), "--index", "0", "--format", "json"});
  CHECK(nlohmann::json::parse(json.out).at("same_kernel") == false);
}

TEST_CASE("profile list: a template's choices by their labels in the table, numbers in JSON") {
  TempDir dir;
  ProfileEntry e = entry("NVIDIA H100 80GB HBM3", 1 << 24, 1e-4);
  e.template_name = "aos_soa";
  e.problem = {{"n", 1 << 24}, {"op", 1}};
  {
    ProfileStore store(dir.file("s.json"));
    store.save(e);
  }
  auto r = run_cli({"profile", "list", dir.file("s.json").c_str()});
  CHECK(r.code == 0);
  CHECK(r.out.find("op=write") != std::string::npos);
  CHECK(r.out.find("op=1") == std::string::npos);
  r = run_cli({"profile", "list", dir.file("s.json").c_str(), "--format", "json"});
  CHECK(nlohmann::json::parse(r.out).at("entries").at(0).at("problem").at("op") == 1);
}

TEST_CASE("profile list: an entry without a time shows none, not 0.00 us") {
  TempDir dir;
  ProfileEntry untimed = entry("NVIDIA H100 80GB HBM3", 1 << 20, 0.0);
  ProfileStore(dir.file("s.json")).save(untimed);
  const auto r = run_cli({"profile", "list", dir.file("s.json").c_str(), "--format", "json"});
  REQUIRE(r.code == 0);
  CHECK(nlohmann::json::parse(r.out).at("entries").at(0).at("time_s").is_null());
  CHECK(run_cli({"profile", "list", dir.file("s.json").c_str()}).out.find("0.00") == std::string::npos);
}

TEST_CASE("profile diff: same key, different pick; keys only in one store") {
  const auto r = run_cli({"profile", "diff", asset("a.json").c_str(), asset("b.json").c_str(), "--format", "json"});
  CHECK(r.code == cli::kExitError); // they differ
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("different").size() == 2);
  CHECK(j.at("only_a").size() == 1);
  CHECK(j.at("only_b").size() == 1);
  CHECK(run_cli({"profile", "diff", asset("a.json").c_str(), asset("a.json").c_str()}).code == 0);
}

TEST_CASE("profile diff: the same pick timed differently is counted and its largest difference given") {
  TempDir dir;
  ProfileStore(dir.file("a.json")).save(entry("NVIDIA H100 80GB HBM3", 1 << 20, 1.0e-4));
  ProfileStore(dir.file("b.json")).save(entry("NVIDIA H100 80GB HBM3", 1 << 20, 1.5e-4));
  const auto r = run_cli({"profile", "diff", dir.file("a.json").c_str(), dir.file("b.json").c_str()});
  CHECK(r.code == 0); // the same picks
  CHECK(r.out.find("0 keys with different picks, 1 the same (1 timed differently, up to 50.0 %)") != std::string::npos);
}

TEST_CASE("profile merge: a conflict keeps the faster measured entry and says so") {
  TempDir dir;
  std::filesystem::copy_file(asset("a.json"), dir.file("m.json"));
  const auto r = run_cli({"profile", "merge", asset("b.json").c_str(), "--into", dir.file("m.json").c_str()});
  CHECK(r.code == 0);
  CHECK(r.out.find("1 added, 2 replaced, 0 kept") != std::string::npos);
  CHECK(r.out.find("faster measured") != std::string::npos);
  CHECK(r.out.find("measured beats modeled") != std::string::npos);
  CHECK(ProfileStore(dir.file("m.json")).entries().size() == 4);

  std::vector<ProfileEntry> dest = {entry("G", 1, 2e-6), entry("G", 2, 1e-6, "modeled")};
  const auto m = cli::merge_entries(dest, {entry("G", 1, 3e-6), entry("G", 2, 5e-6), entry("G", 3, 1e-6)}, "in.json");
  CHECK(m.added == 1);
  CHECK(m.kept == 1);     // 2 us measured beats 3 us measured
  CHECK(m.replaced == 1); // measured 5 us beats modeled 1 us
  CHECK(dest[0].time_s == 2e-6);
  CHECK(dest[1].mode == "measured");
}

TEST_CASE("profile merge of stores written by concurrent runs loses no entry, even while the destination is written") {
  TempDir dir;
  const int per_writer = 25;
  auto writer = [&](const std::string& store, const std::string& device) {
    for (int i = 0; i < per_writer; ++i) ProfileStore(store).save(entry(device, 1000 + i, 1e-5));
  };
  {
    std::vector<std::thread> t;
    t.emplace_back(writer, dir.file("a.json"), "GPU-A1");
    t.emplace_back(writer, dir.file("a.json"), "GPU-A2");
    t.emplace_back(writer, dir.file("b.json"), "GPU-B1");
    t.emplace_back(writer, dir.file("b.json"), "GPU-B2");
    for (auto& x : t) x.join();
  }
  CHECK(ProfileStore(dir.file("a.json")).entries().size() == 2 * per_writer);
  // Two merges and a run saving into the destination, all at once.
  std::vector<std::thread> t;
  int codes[2] = {-1, -1};
  t.emplace_back([&] { codes[0] = run_cli({"profile", "merge", dir.file("a.json").c_str(), "--into", dir.file("c.json").c_str()}).code; });
  t.emplace_back([&] { codes[1] = run_cli({"profile", "merge", dir.file("b.json").c_str(), "--into", dir.file("c.json").c_str()}).code; });
  t.emplace_back(writer, dir.file("c.json"), "GPU-C");
  for (auto& x : t) x.join();
  CHECK(codes[0] == 0);
  CHECK(codes[1] == 0);
  const auto merged = ProfileStore(dir.file("c.json")).entries();
  CHECK(merged.size() == 5 * per_writer);
  for (const char* device : {"GPU-A1", "GPU-A2", "GPU-B1", "GPU-B2", "GPU-C"})
    CHECK_MESSAGE(std::count_if(merged.begin(), merged.end(), [&](const ProfileEntry& e) { return e.device.name == device; }) ==
                      per_writer,
                  device);
}

TEST_CASE("profile prune: by date, device and mode; a dry run changes nothing") {
  TempDir dir;
  std::filesystem::copy_file(asset("a.json"), dir.file("p.json"));
  auto r = run_cli({"profile", "prune", dir.file("p.json").c_str()});
  CHECK(r.code == cli::kExitUsage);
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--before", "2026-01-01", "--dry-run"});
  CHECK(r.out.find("1 would be removed, 2 kept") != std::string::npos);
  CHECK(ProfileStore(dir.file("p.json")).entries().size() == 3);
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--device", "a100", "--modeled"});
  CHECK(r.out.find("1 removed, 2 kept") != std::string::npos);
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--older-than", "365000"});
  CHECK(r.out.find("0 removed, 2 kept") != std::string::npos);
  CHECK(ProfileStore(dir.file("p.json")).entries().size() == 2);
}

TEST_CASE("profile prune --before: an ISO 8601 date or an error naming the format; nothing removed on a bad one") {
  TempDir dir;
  std::filesystem::copy_file(asset("a.json"), dir.file("p.json"));
  const std::string before = slurp(dir.file("p.json"));
  for (const char* bad : {"26/11/2026", "garbage", "Nov 1 2026", "2026-02-30", "2026-11-2", "2026-11-21T25:00"}) {
    CAPTURE(bad);
    const auto r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--before", bad});
    CHECK(r.code == cli::kExitUsage);
    CHECK(r.err.find("--before") != std::string::npos);
    CHECK(r.err.find("is not an ISO 8601 date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ") != std::string::npos);
    CHECK(slurp(dir.file("p.json")) == before);
  }
  // Compared as times: 2026-11-21 (midnight) is after the entry of the 20th, before the one of the 22nd.
  auto r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--before", "2026-11-21", "--dry-run"});
  CHECK(r.out.find("2 would be removed, 1 kept") != std::string::npos);
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--before", "2026-11-20T08:00:01Z", "--dry-run"});
  CHECK(r.out.find("2 would be removed, 1 kept") != std::string::npos);
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--before", "2026-11-20T08:00Z", "--dry-run"});
  CHECK(r.out.find("1 would be removed, 2 kept") != std::string::npos);
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--older-than", "-5"});
  CHECK(r.code == cli::kExitUsage);
  CHECK(r.err.find("'-5' is not a number of days >= 0") != std::string::npos);
  // An entry's date that is not a time: the store, the entry and the field are named, nothing removed.
  nlohmann::json j = nlohmann::json::parse(before);
  j["entries"][1]["saved_at"] = "yesterday";
  { std::ofstream(dir.file("p.json")) << j.dump(2); }
  const std::string dated = slurp(dir.file("p.json"));
  r = run_cli({"profile", "prune", dir.file("p.json").c_str(), "--before", "2026-11-21"});
  CHECK(r.code == cli::kExitError);
  CHECK(r.err.find(dir.file("p.json") + ": field 'entries[1].saved_at': \"yesterday\" of the entry") != std::string::npos);
  CHECK(slurp(dir.file("p.json")) == dated);
}

TEST_CASE("utc_seconds: ISO 8601 dates and times as seconds, anything else refused") {
  CHECK(cli::utc_seconds("1970-01-01") == 0);
  CHECK(cli::utc_seconds("1970-01-02T00:00:01Z") == 86401);
  CHECK(cli::utc_seconds("2026-11-26") == cli::utc_seconds("2026-11-26T00:00:00Z"));
  CHECK(*cli::utc_seconds("2026-11-26T00:00") < *cli::utc_seconds("2026-11-26T00:01"));
  CHECK(*cli::utc_seconds("2024-02-29") + 86400 == *cli::utc_seconds("2024-03-01"));
  for (const char* bad : {"", "2026", "2023-02-29", "2026-13-01", "2026-11-26 10:00", "2026-11-26T10:00:00+02:00",
                          "26/11/2026", "2026-11-26Z0", "+2026-11-26"})
    CHECK_FALSE(cli::utc_seconds(bad).has_value());
}

TEST_CASE("profile tools on a corrupt store: the error names the file and the line, and the store is untouched") {
  TempDir dir;
  std::filesystem::copy_file(asset("corrupt.json"), dir.file("c.json"));
  const std::string before = slurp(dir.file("c.json"));
  const std::string corrupt = dir.file("c.json"), source = asset("a.json");
  for (auto args : {std::vector<const char*>{"profile", "list"}, {"profile", "prune", "--modeled"},
                    {"profile", "merge", source.c_str(), "--into"}}) {
    args.push_back(corrupt.c_str());
    const auto r = run_cli(args);
    CHECK(r.code == cli::kExitError);
    CHECK(r.err.find(dir.file("c.json") + ":15: not valid JSON (line 15") != std::string::npos);
    // The tools that write say so; `list` only reads.
    if (std::string(args[1]) != "list") CHECK(r.err.find("left untouched") != std::string::npos);
    CHECK(slurp(dir.file("c.json")) == before);
  }
  // A corrupt source stops a merge before the destination is written.
  std::filesystem::copy_file(asset("a.json"), dir.file("d.json"));
  const std::string dest = slurp(dir.file("d.json"));
  const auto r = run_cli({"profile", "merge", dir.file("c.json").c_str(), "--into", dir.file("d.json").c_str()});
  CHECK(r.code == cli::kExitError);
  CHECK(slurp(dir.file("d.json")) == dest);
}
