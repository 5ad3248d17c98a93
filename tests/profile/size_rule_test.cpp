// The per-call rule a sweep leaves in a store (size_rule.hpp): the entry of
// the same size, else the configuration best by the ranking interpolated
// between the two neighbouring sizes, with its expected loss; and the
// launcher's lookup taking it (config_lookup.hpp). Also the sweep's warm
// start: a finished size as the next size's bayes prior (sweep_source,
// transfer_prior).
#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/launch/config_lookup.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/tune/model_prior.hpp>
#include <memtune/profile/size_rule.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/tune/transfer.hpp>

#include "../temp_dir.hpp"
#include "tune/src/bounded_grid.hpp"
#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace memtune;

namespace {

const DeviceFingerprint kGpu{"NVIDIA H100 80GB HBM3", 9, 0, 132};

// The filter's default configuration (valid on the H100 at every size here) with another block size.
nlohmann::json cfg(int block) {
  const KernelDescription& d = templates::filter_description();
  const Problem p = d.complete({{"n", 4 << 20}, {"taps", 21}});
  const Target& h100 = catalogue_target("h100-sxm");
  nlohmann::json j = d.space(p, h100).config_to_json(d.default_config(p, h100));
  j["block_size"] = block;
  return j;
}

// An entry at size n: the best and runner-ups as (block_size, time [s]).
ProfileEntry entry_at(std::int64_t n, const std::vector<std::pair<int, double>>& times) {
  ProfileEntry e;
  e.device = kGpu;
  e.template_name = "filter";
  e.problem = {{"n", n}, {"taps", 21}};
  e.config = cfg(times.front().first);
  e.time_s = times.front().second;
  for (std::size_t i = 1; i < times.size(); ++i)
    e.runner_ups.push_back({{"config", cfg(times[i].first)}, {"time_s", times[i].second}, {"gbps", 1.0}});
  return e;
}

// Two sizes whose best differ: 128 wins at 1M, 512 at 16M; 256 is second at both.
std::vector<ProfileEntry> two_sizes() {
  return {entry_at(1 << 20, {{128, 10e-6}, {256, 11e-6}, {512, 14e-6}}),
          entry_at(16 << 20, {{512, 100e-6}, {256, 104e-6}, {128, 130e-6}})};
}

// The two sizes in a store in `dir`.
ProfileStore two_sizes_stored(const memtune::testing::TempDir& dir) {
  ProfileStore store(dir.path / "sweep.memtune.json");
  for (const ProfileEntry& e : two_sizes()) store.save(e);
  return store;
}

// The H100 as the store's entries name it.
Target the_gpu() {
  Target h100 = catalogue_target("h100-sxm");
  h100.display_name = kGpu.name;
  h100.sm_count = kGpu.sm_count;
  return h100;
}

} // namespace

TEST_CASE("between two sizes: the least log-interpolated time of the configurations both timed, and its loss") {
  const auto entries = two_sizes();
  // 4M is halfway on a log scale between 1M and 16M: w = 0.5.
  const auto p = interpolate_sizes(entries, {{"n", 4 << 20}, {"taps", 21}}, {"n"});
  REQUIRE(p);
  CHECK(p->position == doctest::Approx(0.5));
  CHECK(p->compared == 3);
  CHECK_FALSE(p->bounded);
  // geometric means: 128 sqrt(10*130)=36.06, 256 sqrt(11*104)=33.82, 512 sqrt(14*100)=37.42
  CHECK(p->config == cfg(256));
  CHECK(p->predicted_time_s == doctest::Approx(std::sqrt(11e-6 * 104e-6)));
  // 256 loses 10 % at 1M and 4 % at 16M: 7 % halfway.
  CHECK(p->expected_loss == doctest::Approx(0.5 * 0.1 + 0.5 * 0.04));
  CHECK(p->lower.problem.at("n") == 1 << 20);
  CHECK(p->upper.problem.at("n") == 16 << 20);
  CHECK(describe(*p) == "interpolated between n=1048576 taps=21 and n=16777216 taps=21 (w 0.50, 3 configurations "
                        "in common): expected loss 7.0 %");

  // Near an end, that end's best wins and loses nothing there.
  const auto near_low = interpolate_sizes(entries, {{"n", 1100000}, {"taps", 21}}, {"n"});
  REQUIRE(near_low);
  CHECK(near_low->config == cfg(128));
  CHECK(near_low->expected_loss < 0.05);
  const auto near_high = interpolate_sizes(entries, {{"n", 15 << 20}, {"taps", 21}}, {"n"});
  REQUIRE(near_high);
  CHECK(near_high->config == cfg(512));
}

TEST_CASE("no interpolation outside the sweep") {
  const auto entries = two_sizes();
  CHECK_FALSE(interpolate_sizes(entries, {{"n", 32 << 20}, {"taps", 21}}, {"n"}));
  CHECK_FALSE(interpolate_sizes(entries, {{"n", 1 << 19}, {"taps", 21}}, {"n"}));
  CHECK_FALSE(interpolate_sizes({entries[0]}, {{"n", 2 << 20}, {"taps", 21}}, {"n"}));
  // A size of 0 (a hand-edited store) has no place on the log scale: not an end of a rule.
  const std::vector<ProfileEntry> with_zero{entry_at(0, {{256, 1e-6}}), entries[1]};
  CHECK_FALSE(interpolate_sizes(with_zero, {{"n", 1 << 20}, {"taps", 21}}, {"n"}));
  CHECK(size_rule_rows(with_zero, {"n"}).empty());
  CHECK(size_rule_rows(entries, {"n"}).size() == 1);
}

TEST_CASE("a configuration one size did not keep counts there as its slowest kept: a lower bound, so stated") {
  const std::vector<ProfileEntry> disjoint{entry_at(1 << 20, {{128, 10e-6}, {256, 12e-6}}),
                                           entry_at(16 << 20, {{512, 100e-6}, {1024, 120e-6}})};
  // 2M: w = 0.25. 128: 10^0.75 120^0.25 (18.6) beats 512: 12^0.75 100^0.25 (20.4).
  const auto p = interpolate_sizes(disjoint, {{"n", 2 << 20}, {"taps", 21}}, {"n"});
  REQUIRE(p);
  CHECK(p->position == doctest::Approx(0.25));
  CHECK(p->config == cfg(128));
  CHECK(p->compared == 0);
  CHECK(p->bounded);
  CHECK(p->expected_loss == doctest::Approx(0.25 * (120.0 / 100 - 1)));
  CHECK(describe(*p).find("0 configurations in common): expected loss at least 5.0 %") != std::string::npos);
  // Near the upper size, its own best.
  const auto high = interpolate_sizes(disjoint, {{"n", 12 << 20}, {"taps", 21}}, {"n"});
  REQUIRE(high);
  CHECK(high->config == cfg(512));
}

TEST_CASE("of several sizes, the two that enclose the call and are nearest") {
  auto entries = two_sizes();
  entries.push_back(entry_at(4 << 20, {{256, 40e-6}, {512, 41e-6}, {128, 45e-6}}));
  const auto p = interpolate_sizes(entries, {{"n", 8 << 20}, {"taps", 21}}, {"n"});
  REQUIRE(p);
  CHECK(p->lower.problem.at("n") == 4 << 20);
  CHECK(p->upper.problem.at("n") == 16 << 20);
  const auto rows = size_rule_rows(entries, {"n"});
  REQUIRE(rows.size() == 2); // sorted by size: 1M..4M, 4M..16M
  CHECK(rows[0].lower.at("n") == 1 << 20);
  CHECK(rows[1].upper.at("n") == 16 << 20);
  REQUIRE(rows[1].midpoint);
  CHECK(rows[1].midpoint->position == doctest::Approx(0.5));
}

TEST_CASE("with the model: its time at the call's size, corrected by what each neighbour measured against it") {
  auto entries = two_sizes();
  const nlohmann::json resources = kernel_resources_to_json({.registers = 32});
  for (ProfileEntry& e : entries) {
    e.resources = kernel_resources_from_json(io::JsonFields(resources));
    for (auto& r : e.runner_ups) r["resources"] = resources;
  }
  const Problem mid{{"n", 4 << 20}, {"taps", 21}};
  // The model is 20 % fast on every configuration at both sizes (the
  // corrections, 1.25), and at 4M puts 256 behind a step (a partial wave,
  // say) that interpolating the times alone cannot see.
  const auto model = [](const nlohmann::json& c, const Problem& at) {
    const int block = c.at("block_size").get<int>();
    const double measured_1m = block == 128 ? 10e-6 : block == 256 ? 11e-6 : 14e-6;
    const double measured_16m = block == 512 ? 100e-6 : block == 256 ? 104e-6 : 130e-6;
    if (at.at("n") == 1 << 20) return 0.8 * measured_1m;
    if (at.at("n") == 16 << 20) return 0.8 * measured_16m;
    return 0.8 * std::sqrt(measured_1m * measured_16m) * (block == 256 ? 1.3 : 1.0);
  };
  const PredictAt predict = [&](const nlohmann::json& c, const KernelResources& r, const Problem& at) -> std::optional<double> {
    CHECK(kernel_resources_to_json(r) == resources); // what the entry kept for that configuration
    return model(c, at);
  };
  const auto p = interpolate_sizes(entries, mid, {"n"}, {}, predict);
  REQUIRE(p);
  CHECK(p->modeled);
  // 256 wins interpolated alone (above); behind its step 128 (36.06 us) beats 512 (37.42 us).
  CHECK(p->config == cfg(128));
  CHECK(p->predicted_time_s == doctest::Approx(std::sqrt(10e-6 * 130e-6)));
  CHECK(p->expected_loss == doctest::Approx(0.5 * 0.0 + 0.5 * 0.3)); // still against each size's own best
  CHECK(describe(*p).find("and n=16777216 taps=21, the model's time here corrected by theirs (w 0.50") != std::string::npos);
  // Behind its step, 256's corrected time is 1.3 sqrt(11 x 104) = 43.97 us against 128's 36.06: 21.95 % behind.
  CHECK(p->model_gain == doctest::Approx(1.3 * std::sqrt(11.0 * 104.0) / std::sqrt(10.0 * 130.0) - 1));
  CHECK(describe(*p).find("expected loss 15.0 % there; here the model puts the times' pick 22.0 % behind it") !=
        std::string::npos);
  // The midpoint rows of `memtune profile show` rank the same way.
  const auto rows = size_rule_rows(entries, {"n"}, {}, predict);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].midpoint);
  CHECK(rows[0].midpoint->modeled);
  CHECK(rows[0].midpoint->config == cfg(128));

  // The model with 256's step at 4M scaled to `step` (the model above: 1.3).
  const auto with_step = [&](double step) -> PredictAt {
    return [&model, step](const nlohmann::json& c, const KernelResources&, const Problem& at) -> std::optional<double> {
      const double t = model(c, at);
      return c.at("block_size") == 256 && at.at("n") == 4 << 20 ? t / 1.3 * step : t;
    };
  };

  // A step that leaves 256 1.3 % behind the model's fastest, 128 (36.53
  // against 36.06 us), within 3 % (a measurement's run-to-run spread): the
  // pick both neighbours measured well stands.
  const auto within = interpolate_sizes(entries, mid, {"n"}, {}, with_step(1.08));
  REQUIRE(within);
  CHECK_FALSE(within->modeled);
  CHECK(within->config == cfg(256));

  // A step that leaves 256 6 % behind 128 at this size (38.22 against
  // 36.06 us): beyond 3 %, but less than the 8 % by which the neighbours
  // measured 128 behind 256 (expected loss 15 against 7 %): the measured
  // pick stands.
  const auto deficit = interpolate_sizes(entries, mid, {"n"}, {}, with_step(1.1302));
  REQUIRE(deficit);
  CHECK_FALSE(deficit->modeled);
  CHECK(deficit->config == cfg(256));

  // One configuration the model cannot predict (or one kept without its
  // resources): the times interpolated alone rank all, as before.
  const PredictAt partial = [&](const nlohmann::json& c, const KernelResources&, const Problem& at) -> std::optional<double> {
    if (c.at("block_size") == 512) return std::nullopt;
    return model(c, at);
  };
  const auto alone = interpolate_sizes(entries, mid, {"n"}, {}, partial);
  REQUIRE(alone);
  CHECK_FALSE(alone->modeled);
  CHECK(alone->config == cfg(256));
  const auto no_resources = interpolate_sizes(two_sizes(), mid, {"n"}, {}, predict);
  REQUIRE(no_resources);
  CHECK_FALSE(no_resources->modeled);
  CHECK(no_resources->config == cfg(256));
}

TEST_CASE("size_rule_model: the model's time of a stored configuration from its kept resources, no compile") {
  const KernelDescription& d = templates::filter_description();
  const SizeRuleModel rule = size_rule_model(d, the_gpu());
  const PredictAt& predict = rule.predict;
  REQUIRE(predict);
  const KernelResources resources{.registers = 32};
  const Problem small = d.complete({{"n", 1 << 20}, {"taps", 21}}), large = d.complete({{"n", 16 << 20}, {"taps", 21}});
  const auto at_small = predict(cfg(256), resources, small), at_large = predict(cfg(256), resources, large);
  REQUIRE(at_small);
  REQUIRE(at_large);
  CHECK(*at_large > 4 * *at_small); // 16x the bytes, past the launch's fixed cost
  // Registers that leave no block room: no time, so the lookup falls back to the times alone.
  CHECK_FALSE(predict(cfg(1024), {.registers = 255}, small));
  // A configuration that is not one of this space.
  nlohmann::json odd = cfg(256);
  odd["block_size"] = 100;
  CHECK_FALSE(predict(odd, resources, small));
  CHECK_FALSE(rule.kept(odd, small));
  CHECK(rule.kept(cfg(256), small) == cfg(256));
}

// Two sizes of an fdtd sweep on an H200 (`memtune sweep fdtd`, commit
// eeb7ba7): 360x360x210's best takes 6 z-chunks a column, 480x480x256's one
// (its 240 tile columns nearly fill the 264 block slots). At 416x416x232 the
// one-chunk ring fills 0.69 of a wave: on that run's whole grid there it
// measured 1.199x the best, the model's pick below 1.012x.
TEST_CASE("the launcher between two fdtd sizes of an H200 sweep: the model sees the partial wave the times miss") {
  const KernelDescription& d = templates::fdtd_description();
  Target h200 = catalogue_target("h200");
  h200.display_name = "NVIDIA H200"; // as the store's entries name it
  const Problem mid = d.complete({{"nx", 416}, {"ny", 416}, {"nz", 232}, {"radius", 4}});
  const std::filesystem::path stored = MEMTUNE_TEST_ASSETS_DIR "/profiles/fdtd_sweep_h200.memtune.json";

  const ProfileStore store(stored);
  const ConfigLookup with_model = look_up_config(d, mid, h200, &store, {}, {});
  REQUIRE(with_model.between);
  CHECK(with_model.between->modeled);
  CHECK(with_model.config.at("zfill") != 0);
  CHECK(with_model.origin.find("the model's time here corrected by theirs") != std::string::npos);
  CHECK(with_model.rationale.find("the model's time at this size") != std::string::npos);

  // The same store without the resources (as saved before entries kept them): the times alone.
  memtune::testing::TempDir dir;
  ProfileStore plain(dir.path / "plain.memtune.json");
  for (ProfileEntry e : store.entries()) {
    e.resources.reset();
    for (auto& r : e.runner_ups) r.erase("resources");
    plain.save(e);
  }
  const ConfigLookup alone = look_up_config(d, mid, h200, &plain, {}, {});
  REQUIRE(alone.between);
  CHECK_FALSE(alone.between->modeled);
  CHECK(alone.config.at("zfill") == 0);
}

TEST_CASE("the launcher's lookup: the exact size's entry, else the interpolated pick, with its loss stated") {
  memtune::testing::TempDir dir;
  const ProfileStore store = two_sizes_stored(dir);
  const KernelDescription& d = templates::filter_description();
  const Target h100 = the_gpu();
  const auto look = [&](std::int64_t n) {
    return look_up_config(d, d.complete({{"n", n}, {"taps", 21}}), h100, &store, {}, {});
  };
  const ConfigLookup exact = look(16 << 20);
  CHECK(exact.origin == "profile");
  CHECK_FALSE(exact.between);

  const ConfigLookup mid = look(4 << 20);
  REQUIRE(mid.source == ConfigLookup::Source::profile);
  REQUIRE(mid.between);
  CHECK(mid.between->config == cfg(256));
  CHECK(mid.config.at("block_size") == 256);
  CHECK(mid.origin.find("profile (interpolated between n=1048576 taps=21 and n=16777216 taps=21") == 0);
  CHECK(mid.origin.find("expected loss 7.0 %") != std::string::npos);

  const ConfigLookup outside = look(64 << 20);
  CHECK_FALSE(outside.between);
  CHECK(outside.origin == "profile (nearest size: n=16777216 taps=21)");
}

TEST_CASE("only configurations that may run at the call's size are ranked; none: no pick") {
  const auto entries = two_sizes();
  const Problem mid{{"n", 4 << 20}, {"taps", 21}};
  // 256 would win (see above); where it may not run, 128 (sqrt(10*130) = 36.06 against 512's 37.42).
  const auto p = interpolate_sizes(entries, mid, {"n"}, [](const nlohmann::json& c, const Problem&) {
    return c.at("block_size") != 256 ? std::optional(c) : std::nullopt;
  });
  REQUIRE(p);
  CHECK(p->config == cfg(128));
  CHECK(p->compared == 2);
  CHECK(p->expected_loss == doctest::Approx(0.5 * 0.0 + 0.5 * (130.0 / 100 - 1))); // against each size's own best
  CHECK_FALSE(interpolate_sizes(entries, mid, {"n"}, [](const nlohmann::json&, const Problem&) {
    return std::optional<nlohmann::json>();
  }));
  // 128 may run at 4M and 16M but not at 1M, where it was timed: no time there, so no candidate.
  const auto not_at_lower = interpolate_sizes(entries, mid, {"n"}, [](const nlohmann::json& c, const Problem& at) {
    const bool runs = c.at("block_size") != 256 && !(c.at("block_size") == 128 && at.at("n") == 1 << 20);
    return runs ? std::optional(c) : std::nullopt;
  });
  REQUIRE(not_at_lower);
  CHECK(not_at_lower->config == cfg(512));
}

TEST_CASE("between two sizes: a configuration one neighbour kept that is a duplicate at the other takes its twin's time there") {
  // Made up, with the fdtd zfill's shape: at 16M, block 128 is the same
  // kernel as block 256, which 16M kept; 1M kept 128 itself.
  const std::vector<ProfileEntry> entries{entry_at(1 << 20, {{128, 10e-6}, {256, 12e-6}}),
                                          entry_at(16 << 20, {{256, 100e-6}, {512, 104e-6}})};
  const Problem mid{{"n", 4 << 20}, {"taps", 21}};
  const KeptAtProblem as_is = [](const nlohmann::json& c, const Problem&) { return std::optional(c); };
  const KeptAtProblem twins = [](const nlohmann::json& c, const Problem& at) {
    return at.at("n") == 16 << 20 && c.at("block_size") == 128 ? std::optional(cfg(256)) : std::optional(c);
  };
  // Without the twin, 128 has no time at 16M: its loss there is a bound.
  const auto alone = interpolate_sizes(entries, mid, {"n"}, as_is);
  REQUIRE(alone);
  CHECK(alone->config == cfg(128));
  CHECK(alone->bounded);
  CHECK(alone->compared == 1);
  // With it, 128 takes 256's 100 us at 16M: measured at both, best at both.
  const auto p = interpolate_sizes(entries, mid, {"n"}, twins);
  REQUIRE(p);
  CHECK(p->config == cfg(128));
  CHECK_FALSE(p->bounded);
  CHECK(p->compared == 2);
  CHECK(p->expected_loss == doctest::Approx(0.0));
  CHECK(p->predicted_time_s == doctest::Approx(std::sqrt(10e-6 * 100e-6)));
}

TEST_CASE("the launcher's lookup: a nearest size whose best may not run here gives its fastest runner-up that may") {
  memtune::testing::TempDir dir;
  const ProfileStore store = two_sizes_stored(dir);
  const KernelDescription& d = templates::filter_description();
  Target small_blocks = the_gpu();
  small_blocks.max_threads_per_block = 256; // 16M's best, block 512, may not run; its runner-up 256 may
  const ConfigLookup outside =
      look_up_config(d, d.complete({{"n", 64 << 20}, {"taps", 21}}), small_blocks, &store, {}, {});
  REQUIRE(outside.source == ConfigLookup::Source::profile);
  CHECK(outside.config.at("block_size") == 256);
  CHECK(outside.origin == "profile (nearest size: n=16777216 taps=21), its runner-up 1 (the best is not valid here)");
  REQUIRE(outside.skipped.size() == 1);
  CHECK(outside.skipped.front().find("is not valid here") != std::string::npos);
  // The entry's rationale is its best's: the one taken is explained instead.
  CHECK(outside.rationale.find("the fastest runner-up valid here of the entry for n=16777216 taps=21: 104 us measured "
                               "there, against its best's 100 us (") == 0);
}

TEST_CASE("the launcher's lookup: a best that is a duplicate at this size is taken as the same kernel, not passed over") {
  // The fdtd's zfill 1 gives 8 z-chunks at 256x256x64 on 132 SMs (16 tile
  // columns of 128x32) and one at 768x768x256 (144 columns), where the
  // space keeps that kernel as zfill 0.
  memtune::testing::TempDir dir;
  const KernelDescription& d = templates::fdtd_description();
  const Target gpu = the_gpu();
  const Problem swept = d.complete({{"nx", 256}, {"ny", 256}, {"nz", 64}, {"radius", 4}});
  const Problem large = d.complete({{"nx", 768}, {"ny", 768}, {"nz", 256}, {"radius", 4}});
  const search::Space at_swept = d.space(swept, gpu);
  const search::Config best = at_swept.config_from_json(
      {{"scheme", "ring"}, {"bx", 64}, {"by", 8}, {"vx", 2}, {"zsplit", 1}, {"prefetch", 3}, {"pad", 0},
       {"min_warps", 0}, {"ky", 4}, {"zu", 9}, {"copy", "bulk"}, {"zfill", 1}});
  REQUIRE_MESSAGE(!at_swept.violation(best), *at_swept.violation(best));
  const search::Space at_large = d.space(large, gpu);
  REQUIRE(at_large.violation(best));

  ProfileEntry e;
  e.device = kGpu;
  e.template_name = "fdtd";
  e.problem = swept;
  e.config = at_swept.config_to_json(best);
  e.time_s = 20e-6;
  e.rationale = "the best at 256x256x64";
  ProfileStore store(dir.path / "fdtd.memtune.json");
  store.save(e);

  const ConfigLookup l = look_up_config(d, large, gpu, &store, {}, {});
  REQUIRE(l.source == ConfigLookup::Source::profile);
  search::Config expected = best;
  expected.set("zfill", 0);
  CHECK(l.config == expected);
  CHECK(l.origin == "profile (nearest size: nx=256 ny=256 nz=64 radius=4), as zfill=0 here (the same kernel)");
  CHECK(l.rationale == "the best at 256x256x64");
  CHECK(l.skipped.empty());
}

TEST_CASE("warm start: a finished size is the next size's prior, its ranking carried by the model's size ratio, with the registers it compiled") {
  const Target& h100 = catalogue_target("h100-sxm");
  const KernelDescription& filter = templates::filter_description();
  const Problem small = filter.complete({{"n", 1 << 20}, {"taps", 21}});
  const Problem large = filter.complete({{"n", 16 << 20}, {"taps", 21}});

  const search::Space space = filter.space(large, h100);
  const auto plain = model_prior(filter, large, h100, space);

  // The size done: every configuration at the model's time, except the one
  // the model ranks last at the large size, measured 1000x faster (as a
  // measurement can overturn the model).
  TuningResult done;
  done.template_name = filter.name;
  done.problem = small;
  done.device = kGpu;
  done.space = filter.space(small, h100);
  const auto configs = done.space.enumerate();
  REQUIRE(configs.size() > 3);
  std::vector<Evaluation> predicted;
  for (const search::Config& c : configs) {
    Evaluation e = model_estimate(filter, small, h100, c, filter.bytes_moved(small));
    if (e.ok() && e.timing) predicted.push_back(e);
  }
  REQUIRE(predicted.size() > 3);
  const search::Config favourite =
      std::max_element(predicted.begin(), predicted.end(), [&](const Evaluation& a, const Evaluation& b) {
        return plain(a.config) < plain(b.config);
      })->config;
  for (Evaluation& e : predicted) {
    if (e.config == favourite) e.timing->median_s /= 1000;
    done.evaluations.push_back(e);
  }
  const TransferSource source = sweep_source(done, "n=1048576");
  REQUIRE(source.problem);
  CHECK(*source.problem == small);
  CHECK(source.trials.size() == done.evaluations.size());

  const auto prior = transfer_prior(filter, large, h100, source, space);
  const auto argmin = [&](const auto& f) {
    search::Config best;
    double least = std::numeric_limits<double>::infinity();
    for (const search::Config& c : space.enumerate())
      if (f(c) < least) least = f(c), best = c;
    return best;
  };
  CHECK(argmin(prior) == favourite); // the size done's ranking leads
  CHECK(argmin(plain) != favourite); // where the model alone would not
  // Elsewhere the prior is the model's time at the large size (ratio 1 at the small one).
  const search::Config other = predicted.front().config == favourite ? predicted.back().config : predicted.front().config;
  CHECK(prior(other) == doctest::Approx(plain(other)).epsilon(0.02));

  // A configuration the size done compiled but did not time (it failed
  // there): the model's time here takes ptxas' registers, so 255 of them
  // (one block of 8 warps per SM at most) put it behind the same
  // configuration without them. The others have none: no build to share.
  const auto wide = std::find_if(predicted.begin(), predicted.end(), [&](const Evaluation& e) {
    return e.config != favourite && space.config_to_json(e.config).at("block_size") == 256;
  });
  REQUIRE(wide != predicted.end());
  TuningResult failed = done;
  for (Evaluation& e : failed.evaluations)
    if (e.config == wide->config) {
      e.status = Status::wrong_result;
      e.timing.reset();
    }
  TuningResult compiled = failed;
  for (Evaluation& e : compiled.evaluations)
    if (e.config == wide->config) e.resources.registers = 255;
  const TransferSource with_registers = sweep_source(compiled, "n=1048576");
  REQUIRE(with_registers.compiled.size() == 1);
  const auto without = transfer_prior(filter, large, h100, sweep_source(failed, "n=1048576"), space);
  const auto with = transfer_prior(filter, large, h100, with_registers, space);
  CHECK(with(wide->config) > without(wide->config) + std::log(1.2));
  CHECK(with(other) == doctest::Approx(without(other)));

  TuningResult empty = done;
  empty.evaluations.clear();
  CHECK_THROWS_AS((void)sweep_source(empty, "n=1"), TransferError);
}
