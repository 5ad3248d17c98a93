// merge_recordings: the parts of one run become one recording per GPU model,
// ranked like a single run over the same candidates; parts of other runs,
// missing shards and conflicting results are refused, naming the file.
#include <memtune/profile/recording_merge.hpp>
#include <memtune/search/shard.hpp>

#include "../temp_dir.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace memtune;
using search::Recording;
using search::Shard;

namespace {

const std::filesystem::path kBenchData = MEMTUNE_TEST_BENCH_DATA_DIR;

// The recording's trials that lie in `shard`, with the space restricted to
// it: what `--shard i/N --record` writes for the same run.
Recording shard_of(const Recording& whole, Shard shard) {
  Recording part = whole;
  part.space.restrict_to(shard);
  part.trials.clear();
  part.trial_annotations.clear();
  for (std::size_t i = 0; i < whole.trials.size(); ++i)
    if (shard.contains(whole.trials[i].config)) {
      part.trials.push_back(whole.trials[i]);
      part.trial_annotations.push_back(whole.trial_annotations.at(i));
    }
  return part;
}

std::vector<RecordingPart> shards_of(const Recording& whole, std::uint32_t count) {
  std::vector<RecordingPart> parts;
  for (std::uint32_t i = 1; i <= count; ++i)
    parts.push_back({"shard" + std::to_string(i) + ".json", shard_of(whole, Shard::of(i, count))});
  return parts;
}

// Configurations of the ranking, fastest first.
std::vector<search::Config> ranked_configs(const Recording& r) {
  std::vector<search::Config> out;
  for (const std::size_t i : r.ranking()) out.push_back(r.trials[i].config);
  return out;
}

Recording filter_recording() { return search::load_recording(kBenchData / "h100_filter_16M.json"); }

std::string refusal(const std::vector<RecordingPart>& parts) {
  try {
    (void)merge_recordings(parts);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

} // namespace

TEST_CASE("merge_recordings: the shards of every bench/data recording merge into the whole run, ranked alike") {
  for (const char* name : {"h100_filter_16M.json", "h100_fdtd_512x512x256_r4.json", "h100_matvec_col_8192.json",
                           "h100_matvec_row_8192.json", "h100_aos_soa_read_16M.json", "h100_aos_soa_write_16M.json"}) {
    CAPTURE(name);
    const Recording whole = search::load_recording(kBenchData / name);
    for (const std::uint32_t count : {2u, 4u, 7u}) {
      CAPTURE(count);
      // Through the files, as the job array's tasks write them.
      testing::TempDir dir;
      std::vector<RecordingPart> parts;
      for (auto& part : shards_of(whole, count)) {
        const auto file = dir.path / part.file;
        search::save_recording(part.recording, file);
        parts.push_back({file.string(), search::load_recording(file)});
      }
      const auto merged = merge_recordings(parts);
      REQUIRE(merged.size() == 1);
      const Recording& m = merged.front().recording;
      CHECK(merged.front().coverage == "shards 1-" + std::to_string(count) + " of " + std::to_string(count));
      CHECK(merged.front().identical_duplicates == 0);
      CHECK_FALSE(m.space.shard());
      CHECK(m.space.to_json() == whole.space.to_json());
      CHECK(m.trials.size() == whole.trials.size());
      // bench/data was recorded by grid runs: the merged trials are in the same order.
      CHECK(m.to_json().at("trials") == whole.to_json().at("trials"));
      CHECK(ranked_configs(m) == ranked_configs(whole));
      CHECK(m.best()->config == whole.best()->config);
    }
  }
}

TEST_CASE("merge_recordings: shards given in any order, or with the whole run, rank as the whole run") {
  const Recording whole = filter_recording();
  auto parts = shards_of(whole, 4);
  std::swap(parts[0], parts[3]);
  parts.push_back({"whole.json", whole});
  const auto merged = merge_recordings(parts);
  REQUIRE(merged.size() == 1);
  CHECK(merged.front().coverage == "whole run and shards 1-4 of 4");
  CHECK(merged.front().identical_duplicates == whole.trials.size());
  CHECK(ranked_configs(merged.front().recording) == ranked_configs(whole));
  CHECK(merged.front().files == std::vector<std::string>{"shard4.json", "shard2.json", "shard3.json", "shard1.json", "whole.json"});
}

TEST_CASE("merge_recordings: each trial keeps its other keys (joules, the GPU it ran on) through the merge") {
  Recording whole = filter_recording();
  whole.trial_annotations.assign(whole.trials.size(), nlohmann::json::object());
  for (std::size_t i = 0; i < whole.trials.size(); ++i)
    whole.trial_annotations[i] = {{"device", static_cast<int>(i % 2)}, {"joules_per_launch", 1e-3 * static_cast<double>(i + 1)}};
  const auto merged = merge_recordings(shards_of(whole, 3));
  REQUIRE(merged.size() == 1);
  const Recording& out = merged.front().recording;
  REQUIRE(out.trial_annotations.size() == out.trials.size());
  for (std::size_t i = 0; i < whole.trials.size(); ++i) {
    const auto at = std::find_if(out.trials.begin(), out.trials.end(),
                                 [&](const search::Trial& t) { return t.config == whole.trials[i].config; });
    REQUIRE(at != out.trials.end());
    CHECK(out.trial_annotations[static_cast<std::size_t>(at - out.trials.begin())] == whole.trial_annotations[i]);
  }
}

TEST_CASE("merge_recordings: identical inputs are one recording") {
  const Recording whole = filter_recording();
  const auto merged = merge_recordings({{"a.json", whole}, {"b.json", whole}});
  REQUIRE(merged.size() == 1);
  CHECK(merged.front().identical_duplicates == whole.trials.size());
  CHECK(merged.front().recording.trials.size() == whole.trials.size());
  CHECK(merged.front().coverage == "whole run");
}

TEST_CASE("merge_recordings: a configuration with two different results is refused, naming both files") {
  const Recording whole = filter_recording();
  Recording other = whole;
  auto& t = other.trials[5];
  REQUIRE(t.ok());
  *t.time_s *= 1.5;
  const std::string why = refusal({{"a.json", whole}, {"b.json", other}});
  CHECK(why.find("b.json") == 0);
  CHECK(why.find("configuration " + whole.space.format(t.config)) != std::string::npos);
  CHECK(why.find("in a.json") != std::string::npos);
  CHECK(why.find("measured twice with different results") != std::string::npos);

  // A failure against a success is a conflict too; the same failure with another reason is not.
  Recording failed = whole;
  failed.trials[5].status = "timeout";
  failed.trials[5].time_s.reset();
  CHECK(refusal({{"a.json", whole}, {"b.json", failed}}).find("timeout") != std::string::npos);
  Recording reason = failed;
  reason.trials[5].reason = "killed after 2.01 s";
  CHECK_NOTHROW((void)merge_recordings({{"a.json", failed}, {"b.json", reason}}));
}

TEST_CASE("merge_recordings: parts of another kernel, problem, mode or space are refused, saying what differs") {
  const Recording whole = filter_recording();
  auto check = [&](Recording other, const std::string& field, const std::string& detail) {
    CAPTURE(field);
    const std::string why = refusal({{"a.json", whole}, {"b.json", std::move(other)}});
    CHECK(why.find("b.json") == 0);
    CHECK(why.find("field '" + field + "'") != std::string::npos);
    CHECK(why.find("differs from a.json") != std::string::npos);
    CHECK(why.find(detail) != std::string::npos);
  };
  Recording r = whole;
  r.template_name = "matvec";
  check(r, "template", "matvec here, filter there");
  r = whole;
  r.kernel_fingerprint = "abc123";
  check(r, "kernel_fingerprint", "abc123 here, (none) there");
  r = whole;
  r.problem["n"] = 1024;
  check(r, "problem", "1024");
  r = whole;
  r.mode = "modeled";
  check(r, "mode", "modeled here");
  r = whole;
  search::Space smaller;
  for (const auto& axis : whole.space.axes()) {
    search::Axis a = axis;
    if (a.name == "block_size") a.values.pop_back();
    smaller.add(a);
  }
  for (const auto& c : whole.space.constraints()) smaller.require(c);
  r.space = smaller;
  r.trials.clear();
  check(r, "space.axes.block_size", "1024");
}

TEST_CASE("merge_recordings: shards of different counts, or a missing shard, are refused") {
  const Recording whole = filter_recording();
  auto parts = shards_of(whole, 4);
  parts.erase(parts.begin() + 2);
  const std::string missing = refusal(parts);
  CHECK(missing.find("shards 1,2,4 of 4") != std::string::npos);
  CHECK(missing.find("shard 3 of 4 is missing") != std::string::npos);

  auto mixed = shards_of(whole, 2);
  mixed.push_back({"other.json", shard_of(whole, Shard::of(1, 3))});
  const std::string counts = refusal(mixed);
  CHECK(counts.find("other.json") == 0);
  CHECK(counts.find("is shard 1/3, but shard1.json is shard 1/2") != std::string::npos);
}

TEST_CASE("merge_recordings: GPU models are kept apart, one recording each, each checked on its own") {
  const Recording h100 = filter_recording();
  Recording a100 = h100;
  a100.device = {{"name", "NVIDIA A100-SXM4-40GB"}, {"compute_capability", "8.0"}, {"sm_count", 108}};
  for (auto& t : a100.trials)
    if (t.time_s) *t.time_s *= 1.7;
  // Two shards of each model, interleaved: the same configurations differ
  // in time between models, which is not a conflict.
  std::vector<RecordingPart> parts;
  for (std::uint32_t i = 1; i <= 2; ++i) {
    parts.push_back({"h100_" + std::to_string(i), shard_of(h100, Shard::of(i, 2))});
    parts.push_back({"a100_" + std::to_string(i), shard_of(a100, Shard::of(i, 2))});
  }
  const auto merged = merge_recordings(parts);
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].recording.device == h100.device);
  CHECK(merged[1].recording.device == a100.device);
  CHECK(merged[0].files == std::vector<std::string>{"h100_1", "h100_2"});
  CHECK(ranked_configs(merged[0].recording) == ranked_configs(h100));
  CHECK(ranked_configs(merged[1].recording) == ranked_configs(a100));
  CHECK(model_output_path("out/f.json", merged[1], 2) == "out/f.nvidia-a100-sxm4-40gb-108sm.json");
  CHECK(model_output_path("out/f.json", merged[1], 1) == "out/f.json");

  // A model whose shards are incomplete is refused even when the other's are complete.
  parts.pop_back();
  CHECK(refusal(parts).find("shard 2 of 2 is missing") != std::string::npos);
  // Another problem is refused across models too.
  parts.back().recording.problem["n"] = 7;
  CHECK(refusal(parts).find("field 'problem'") != std::string::npos);
}

TEST_CASE("merge_recordings: facts the parts agree on are kept; the parts' times add up; the highest ceiling stays") {
  const Recording whole = filter_recording();
  auto parts = shards_of(whole, 2);
  parts[0].recording.annotations = {{"target", "local"}, {"wall_seconds", 2.0}, {"copy_ceiling_gbps", 2800.0},
                                    {"strategy", "grid"}, {"bytes_moved", 1000}};
  parts[1].recording.annotations = {{"target", "local"}, {"wall_seconds", 3.0}, {"copy_ceiling_gbps", 2823.0},
                                    {"strategy", "random"}, {"bytes_moved", 1000}};
  const auto merged = merge_recordings(parts);
  const auto& a = merged.front().recording.annotations;
  CHECK(a.at("target") == "local");
  CHECK(a.at("bytes_moved") == 1000);
  CHECK(a.at("wall_seconds").get<double>() == doctest::Approx(5.0));
  CHECK(a.at("copy_ceiling_gbps").get<double>() == doctest::Approx(2823.0));
  CHECK_FALSE(a.contains("strategy"));
  CHECK(merged.front().dropped_annotations == std::vector<std::string>{"strategy"});
}

TEST_CASE("profile_entry_from_merge: the merged best with runner-ups, GB/s, ceiling and resources, and where it came from") {
  Recording whole = filter_recording();
  whole.annotations = {{"bytes_moved", 134217728}, {"copy_ceiling_gbps", 2823.0}};
  const auto merged = merge_recordings(shards_of(whole, 3));
  const ProfileEntry e = profile_entry_from_merge(merged.front(), 2);
  const auto best = whole.best();
  CHECK(e.config == whole.space.config_to_json(best->config));
  CHECK(e.time_s == *best->time_s);
  CHECK(e.mode == "measured");
  CHECK(e.device == DeviceFingerprint{"NVIDIA H100 80GB HBM3", 9, 0, 132});
  CHECK(e.template_name == "filter");
  CHECK(e.problem == Problem{{"n", 16777216}, {"taps", 21}});
  CHECK(e.gbps == doctest::Approx(134217728 / *best->time_s / 1e9));
  CHECK(e.fraction_of_ceiling == doctest::Approx(e.gbps / 2823.0));
  REQUIRE(e.runner_ups.size() == 2);
  CHECK(e.runner_ups[0].at("config") == whole.space.config_to_json(whole.trials[whole.ranking()[1]].config));
  CHECK(e.rationale.find("merged by memtune merge from 3 recordings (shards 1-3 of 3)") != std::string::npos);
  CHECK_FALSE(e.resources); // this recording kept none
  CHECK(e.kernel_fingerprint == whole.kernel_fingerprint); // the version of the kernel it timed
  Recording edited = whole;
  edited.kernel_fingerprint = "abc123"; // not what memtune writes: the entry goes without a version
  CHECK(profile_entry_from_merge(merge_recordings(shards_of(edited, 3)).front(), 2).kernel_fingerprint.empty());
  // By default as many runner-ups as every profile entry keeps (a sweep's too).
  REQUIRE(whole.ranking().size() > kProfileRunnerUps + 1);
  CHECK(profile_entry_from_merge(merged.front()).runner_ups.size() == kProfileRunnerUps);

  // Trials that kept their resources: the entry keeps the best's and its
  // runner-ups', for the launcher's model between swept sizes.
  Recording compiled = whole;
  compiled.trial_annotations.assign(compiled.trials.size(), nlohmann::json::object());
  for (std::size_t i = 0; i < compiled.trials.size(); ++i)
    compiled.trial_annotations[i]["resources"] = {{"registers", 20 + static_cast<int>(i % 100)}};
  const ProfileEntry kept = profile_entry_from_merge(merge_recordings(shards_of(compiled, 3)).front(), 2);
  const auto registers_of = [&](const search::Config& c) {
    const auto at = std::find_if(compiled.trials.begin(), compiled.trials.end(),
                                 [&](const search::Trial& t) { return t.config == c; });
    return 20 + static_cast<int>(static_cast<std::size_t>(at - compiled.trials.begin()) % 100);
  };
  REQUIRE(kept.resources);
  CHECK(kept.resources->registers == registers_of(best->config));
  CHECK(kept.runner_ups[0].at("resources").at("registers") ==
        registers_of(whole.trials[whole.ranking()[1]].config));

  // A part's resources out of range: refused, naming the part and the field.
  std::vector<RecordingPart> parts = shards_of(compiled, 3);
  parts[1].recording.trial_annotations[2]["resources"]["registers"] = 300;
  const std::string why = refusal(parts);
  CHECK(why.find("shard2.json") != std::string::npos);
  CHECK(why.find("trials[2].resources.registers") != std::string::npos);
  CHECK(why.find("[0, 255]") != std::string::npos);

  Recording none = whole;
  for (auto& t : none.trials) {
    t.status = "compile_failed";
    t.time_s.reset();
  }
  CHECK_THROWS_AS((void)profile_entry_from_merge(merge_recordings({{"x.json", none}}).front()), std::invalid_argument);
}
