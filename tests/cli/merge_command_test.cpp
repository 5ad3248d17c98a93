// `memtune merge`: shards' recordings into one recording (and --save's
// profile entry), stores into one store; every refusal exits 1 naming the
// file, bad option combinations exit 2. The end-to-end case follows the
// Slurm example on the CPU: modeled shards, merge --save, and the lookup the
// application (examples/filter_app, Session::tune_or_load) makes.
#include "run_cli.hpp"
#include "temp_dir.hpp"
#include "../support/catalogue_target.hpp"

#include <memtune/measure/device.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/search/shard.hpp>
#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace memtune;
using memtune::testing::run_cli;
using memtune::testing::TempDir;

namespace {

const std::filesystem::path kBenchData = MEMTUNE_TEST_BENCH_DATA_DIR;

// bench/data's filter recording as `count` shard files, as a job array writes them.
std::vector<std::string> write_shards(const TempDir& dir, const search::Recording& whole, std::uint32_t count,
                                      const std::string& prefix = "shard") {
  std::vector<std::string> files;
  for (std::uint32_t i = 1; i <= count; ++i) {
    search::Recording part = whole;
    const auto shard = search::Shard::of(i, count);
    part.space.restrict_to(shard);
    part.trials.clear();
    for (const auto& t : whole.trials)
      if (shard.contains(t.config)) part.trials.push_back(t);
    files.push_back((dir.path / (prefix + std::to_string(i) + ".json")).string());
    search::save_recording(part, files.back());
  }
  return files;
}

std::vector<const char*> merge_args(const std::vector<std::string>& inputs, const std::string& out,
                                    std::vector<const char*> more = {}) {
  std::vector<const char*> args{"merge"};
  for (const auto& f : inputs) args.push_back(f.c_str());
  args.push_back("-o");
  args.push_back(out.c_str());
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

} // namespace

TEST_CASE("memtune merge: a recorded run's shards merge into the run; --save writes its best") {
  TempDir dir;
  const search::Recording whole = search::load_recording(kBenchData / "h100_filter_16M.json");
  const auto shards = write_shards(dir, whole, 4);
  const std::string out = (dir.path / "merged.json").string();
  const std::string store = (dir.path / "profiles.json").string();
  const auto r = run_cli(merge_args(shards, out, {"--save", store.c_str()}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("memtune merge: 4 recordings") != std::string::npos);
  CHECK(r.out.find("NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs): 288 candidates from 4 recordings (shards 1-4 of 4)") !=
        std::string::npos);
  CHECK(r.out.find("saved 1 entry to " + store) != std::string::npos);
  const search::Recording merged = search::load_recording(out);
  CHECK(merged.to_json().at("trials") == whole.to_json().at("trials"));
  CHECK_FALSE(merged.space.shard());
  const auto entries = ProfileStore(store).entries();
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].config == whole.space.config_to_json(whole.best()->config));
  CHECK(entries[0].time_s == *whole.best()->time_s);

  // Merging again (the same shards, and the merged run among them) changes nothing.
  auto again = shards;
  again.push_back(out);
  const auto r2 = run_cli(merge_args(again, out, {"--format", "json"}));
  INFO(r2.err);
  REQUIRE(r2.code == 0);
  const auto doc = nlohmann::json::parse(r2.out);
  CHECK(doc.at("outputs").at(0).at("identical_duplicates") == 288);
  CHECK(doc.at("outputs").at(0).at("coverage") == "whole run and shards 1-4 of 4");
  CHECK(search::load_recording(out).to_json().at("trials") == whole.to_json().at("trials"));
  // CSV: a row per merged recording (it printed only its comment lines).
  const auto csv = run_cli(merge_args(again, out, {"--format", "csv"}));
  REQUIRE(csv.code == 0);
  CHECK(csv.out.find("file,device,candidates,best,best_time_s\n" + out + ",\"NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs)\",288,") !=
        std::string::npos);
}

TEST_CASE("memtune merge: refusals name the file and what differs; nothing is written") {
  TempDir dir;
  const search::Recording whole = search::load_recording(kBenchData / "h100_filter_16M.json");
  auto shards = write_shards(dir, whole, 2);
  const std::string out = (dir.path / "merged.json").string();

  SUBCASE("a configuration with two results") {
    search::Recording other = whole;
    *other.trials[0].time_s *= 2;
    const std::string file = (dir.path / "other.json").string();
    search::save_recording(other, file);
    shards.push_back(file);
    const auto r = run_cli(merge_args(shards, out));
    CHECK(r.code == 1);
    CHECK(r.err.find("memtune: " + file) == 0);
    CHECK(r.err.find("measured twice with different results") != std::string::npos);
  }
  SUBCASE("another problem") {
    search::Recording other = whole;
    other.problem["n"] = 4096;
    const std::string file = (dir.path / "other.json").string();
    search::save_recording(other, file);
    shards.push_back(file);
    const auto r = run_cli(merge_args(shards, out));
    CHECK(r.code == 1);
    CHECK(r.err.find(file + ": field 'problem': differs from " + shards[0]) != std::string::npos);
  }
  SUBCASE("a missing shard") {
    shards.pop_back();
    const auto r = run_cli(merge_args(shards, out));
    CHECK(r.code == 1);
    CHECK(r.err.find("shard 2 of 2 is missing") != std::string::npos);
  }
  SUBCASE("a recording and a profile store") {
    shards.push_back(dir.file("store.json", R"({"schema_version": 1, "entries": []})"));
    const auto r = run_cli(merge_args(shards, out));
    CHECK(r.code == 1);
    CHECK(r.err.find("store.json: is a profile store, but " + shards[0] + " is a recording: merge joins inputs of one kind") !=
          std::string::npos);
  }
  SUBCASE("a journal joins the recordings; one without its space is refused, the recording named instead") {
    shards.push_back(dir.file("run.journal", R"({"journal": "memtune", "journal_version": 1})"
                                             "\n"
                                             R"({"candidate": 0, "config": {}, "status": "ok"})"
                                             "\n"));
    const auto r = run_cli(merge_args(shards, out));
    CHECK(r.code == 1);
    CHECK(r.err.find("run.journal:1: field 'space'") != std::string::npos);
    CHECK(r.err.find("--record") != std::string::npos);
  }
  SUBCASE("neither") {
    shards.push_back(dir.file("target.json", R"({"name": "h100"})"));
    const auto r = run_cli(merge_args(shards, out));
    CHECK(r.code == 1);
    CHECK(r.err.find("target.json: is neither a memtune recording") != std::string::npos);
  }
  SUBCASE("-o and --save naming one file") {
    const auto r = run_cli(merge_args(shards, out, {"--save", out.c_str()}));
    CHECK(r.code == 2);
    CHECK(r.err.find("both name one file") != std::string::npos);
  }
  SUBCASE("an output that is not a recording") {
    const std::string store = dir.file("profiles.json", R"({"schema_version": 1, "entries": []})");
    const auto r = run_cli(merge_args(shards, store));
    CHECK(r.code == 1);
    CHECK(r.err.find("exists and is not a memtune recording") != std::string::npos);
    std::ifstream in(store);
    CHECK(std::string(std::istreambuf_iterator<char>(in), {}) == R"({"schema_version": 1, "entries": []})");
  }
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("memtune merge: two GPU models give two recordings, each ranked on its own, and two profile entries") {
  TempDir dir;
  const search::Recording h100 = search::load_recording(kBenchData / "h100_aos_soa_read_16M.json");
  search::Recording pcie = h100;
  pcie.device = {{"name", "NVIDIA H100 PCIe"}, {"compute_capability", "9.0"}, {"sm_count", 114}};
  for (auto& t : pcie.trials)
    if (t.time_s) *t.time_s *= 1.4;
  auto files = write_shards(dir, h100, 2, "sxm");
  const auto more = write_shards(dir, pcie, 3, "pcie");
  files.insert(files.end(), more.begin(), more.end());
  const std::string out = (dir.path / "aos.json").string();
  const std::string store = (dir.path / "profiles.json").string();
  const auto r = run_cli(merge_args(files, out, {"--save", store.c_str()}));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("2 GPU models: one recording each, kept apart") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
  const auto a = search::load_recording(dir.path / "aos.nvidia-h100-80gb-hbm3-132sm.json");
  const auto b = search::load_recording(dir.path / "aos.nvidia-h100-pcie-114sm.json");
  CHECK(a.to_json().at("trials") == h100.to_json().at("trials"));
  CHECK(b.to_json().at("trials") == pcie.to_json().at("trials"));
  const auto entries = ProfileStore(store).entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].device.sm_count == 132);
  CHECK(entries[1].device.sm_count == 114);
}

TEST_CASE("memtune merge: two GPU models whose files would share a name are refused, nothing written") {
  TempDir dir;
  const search::Recording h100 = search::load_recording(kBenchData / "h100_aos_soa_read_16M.json");
  search::Recording other = h100;
  // The same name but another compute capability: one file name for both.
  other.device["compute_capability"] = "9.1";
  auto files = write_shards(dir, h100, 1, "a");
  const auto more = write_shards(dir, other, 1, "b");
  files.insert(files.end(), more.begin(), more.end());
  const std::string out = (dir.path / "aos.json").string();
  const auto r = run_cli(merge_args(files, out));
  CHECK(r.code == 2);
  CHECK(r.err.find("would be written to one file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "aos.nvidia-h100-80gb-hbm3-132sm.json"));
}

TEST_CASE("memtune merge: profile stores join; a key with two picks is refused; --save is for recordings") {
  TempDir dir;
  auto store_with = [&](const std::string& name, std::int64_t n, int block, double time_s) {
    const std::string file = (dir.path / name).string();
    ProfileEntry e;
    e.device = {"NVIDIA H100 80GB HBM3", 9, 0, 132};
    e.template_name = "filter";
    e.problem = {{"n", n}, {"taps", 21}};
    e.config = {{"block_size", block}};
    e.time_s = time_s;
    ProfileStore(file).save(e);
    return file;
  };
  const std::string a = store_with("a.json", 1 << 20, 256, 5e-5);
  const std::string b = store_with("b.json", 1 << 24, 128, 4e-4);
  const std::string same = store_with("same.json", 1 << 20, 256, 5e-5);
  const std::string out = (dir.path / "all.json").string();
  const auto r = run_cli(merge_args({a, b, same}, out));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("2 entries from 3 stores, 1 identical duplicate -> " + out) != std::string::npos);
  CHECK(ProfileStore(out).entries().size() == 2);

  const std::string other = store_with("other.json", 1 << 20, 512, 6e-5);
  const auto conflict = run_cli(merge_args({a, other}, (dir.path / "x.json").string()));
  CHECK(conflict.code == 1);
  CHECK(conflict.err.find(other + ": field 'entries[0]'") != std::string::npos);
  CHECK(conflict.err.find("in " + a) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path / "x.json"));

  const std::string save = (dir.path / "s.json").string();
  const auto misuse = run_cli(merge_args({a, b}, (dir.path / "y.json").string(), {"--save", save.c_str()}));
  CHECK(misuse.code == 2);
  CHECK(misuse.err.find("--save " + save + ": saves a merged recording's best") != std::string::npos);
}

TEST_CASE("memtune merge: the Slurm example's path on the CPU: modeled shards, merge --save, the application's lookup") {
  TempDir dir;
  // What tune_array.sbatch runs per task (a smaller space: --only), then merge.sbatch.
  std::vector<std::string> shards;
  for (int k = 1; k <= 3; ++k) {
    shards.push_back((dir.path / ("filter_n64K_shard" + std::to_string(k - 1) + ".json")).string());
    const std::string shard = std::to_string(k) + "/3";
    const auto r = run_cli({"filter", "--n", "64K", "--target", "h100", "--only", "block_size=256,vec=4", "--shard",
                            shard.c_str(), "-q", "--record", shards.back().c_str()});
    INFO(r.err);
    REQUIRE(r.code == 0);
  }
  const std::string out = (dir.path / "filter_n64K.json").string();
  const std::string store = (dir.path / "profiles.json").string();
  const auto r = run_cli(merge_args(shards, out, {"--save", store.c_str()}));
  INFO(r.err);
  REQUIRE(r.code == 0);

  // The whole run, for comparison: the same candidates, the same pick.
  const std::string whole = (dir.path / "whole.json").string();
  REQUIRE(run_cli({"filter", "--n", "64K", "--target", "h100", "--only", "block_size=256,vec=4", "--shard", "1/1", "-q",
                   "--record", whole.c_str()})
              .code == 0);
  const auto merged = search::load_recording(out);
  const auto single = search::load_recording(whole);
  CHECK(merged.to_json().at("trials") == single.to_json().at("trials"));
  CHECK(merged.mode == "modeled");
  CHECK(merged.kernel_fingerprint == single.kernel_fingerprint);

  // Session::tune_or_load's lookup, with the modeled GPU's fingerprint.
  const Target& h100 = catalogue_target("h100");
  const KernelDescription& filter = templates::filter_description();
  const Problem problem = filter.complete({{"n", 65536}});
  const auto entry = ProfileStore(store).lookup(fingerprint(h100), filter.name, problem, filter.size_variables());
  REQUIRE(entry.has_value());
  CHECK(entry->entry.problem == problem);
  CHECK(entry->entry.mode == "modeled");
  const search::Space space = filter.space(problem, h100);
  const search::Config pick = space.config_from_json(entry->entry.config);
  CHECK(space.is_valid(pick));
  CHECK(pick == single.best()->config);
  // The nearest-size lookup of an application at another size finds it too.
  CHECK(ProfileStore(store).lookup(fingerprint(h100), filter.name, filter.complete({{"n", 1 << 20}}), filter.size_variables()));
}
