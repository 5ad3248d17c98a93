// Cross-GPU transfer (transfer.hpp): reading a source, the per-configuration
// scaling, and the whole path from a recording of one GPU to a prediction
// for another.
#include "../support/asset_description.hpp"
#include "tune/src/bounded_grid.hpp"
#include <memtune/output/tuning_recording.hpp>
#include "../thrown_message.hpp"

#include <memtune/model/target_catalog.hpp>
#include <memtune/tune/model_prior.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/tune/transfer.hpp>
#include <memtune/tune/tuner.hpp>

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

using namespace memtune;
namespace fs = std::filesystem;

namespace {

const fs::path bench_data = MEMTUNE_TEST_BENCH_DATA_DIR;

const model::TargetCatalog& catalog() {
  static const model::TargetCatalog c = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}

fs::path temp_file(const std::string& stem) {
  std::random_device rd;
  return fs::temp_directory_path() / (stem + "-" + std::to_string(rd()) + ".json");
}

// A small filter space, predicted for `target` and saved as if measured there.
fs::path modeled_recording(const Target& target, const Problem& problem) {
  TuneOptions o;
  o.exact_top = 0;
  o.only = {{"block_size", "256"}, {"packing", "1"}, {"items", "4"}};
  TuningResult r = tune_modeled(templates::filter_description(), problem, target, o);
  r.measured = true;
  r.device.name = target.aliases.empty() ? target.name : target.display_name;
  const fs::path file = temp_file("memtune-transfer-source");
  std::ofstream(file) << to_recording(r).to_json().dump();
  return file;
}

} // namespace

TEST_CASE("a recording of another GPU is read as a transfer source, the GPU found in the catalogue") {
  const auto& f = templates::filter_description();
  const Problem problem = complete_problem(f.problem, {{"n", 1 << 24}});
  const TransferSource s = load_transfer_source(bench_data / "h100_filter_16M.json", f, problem, catalog());
  CHECK(s.kind == "recording");
  CHECK(s.device_name == "NVIDIA H100 80GB HBM3");
  CHECK(s.target.name == "h100-sxm");
  CHECK(s.trials.size() == 288);
  CHECK(s.describe() == "h100_filter_16M.json (recording): NVIDIA H100 80GB HBM3, 288 configurations measured");
  // A Kepler configuration has a bank mode the H100 recording does not: it is
  // looked up on the axes both spaces have.
  const search::Space k20_space = f.space(problem, catalog().find("k20"));
  const search::Config c = k20_space.config_from_json(
      {{"staging", "smem"}, {"block_size", 256}, {"packing", 1}, {"items", 4}, {"vec", 4}, {"align", 1}, {"tiles", 1}, {"min_warps", 0}, {"bank_mode", 8}});
  REQUIRE(s.measured(k20_space, c).has_value());
  CHECK(*s.measured(k20_space, c) == doctest::Approx(4.944e-05).epsilon(0.01));
}

TEST_CASE("a source of another template, another problem or no known GPU is refused with the file named") {
  const auto& f = templates::filter_description();
  const fs::path file = bench_data / "h100_filter_16M.json";
  const Problem n1m = complete_problem(f.problem, {{"n", 1 << 20}});
  CHECK(thrown_message<TransferError>([&] { (void)load_transfer_source(file, f, n1m, catalog()); }).find("recorded for n=16777216") !=
        std::string::npos);
  const auto& mv = templates::matvec_description();
  CHECK(thrown_message<TransferError>([&] {
          (void)load_transfer_source(file, mv, complete_problem(mv.problem, {}), catalog());
        }).find("a recording of filter, not of matvec") != std::string::npos);
  const fs::path other = temp_file("memtune-transfer-unknown");
  nlohmann::json j = nlohmann::json::parse(std::ifstream(file));
  j["device"]["name"] = "Some GPU 9000";
  std::ofstream(other) << j.dump();
  const Problem n16m = complete_problem(f.problem, {{"n", 1 << 24}});
  CHECK(thrown_message<TransferError>([&] { (void)load_transfer_source(other, f, n16m, catalog()); }).find("\"Some GPU 9000\"") !=
        std::string::npos);
  std::ofstream(other) << "{\"neither\": 1}";
  CHECK(thrown_message<TransferError>([&] { (void)load_transfer_source(other, f, n16m, catalog()); }).find("neither a recording") !=
        std::string::npos);
  // What --from reads is range-checked, and JSON errors name the file and the line, not nlohmann.
  for (const nlohmann::json& sm : {nlohmann::json(4294967428ULL), nlohmann::json(-7), nlohmann::json("many")}) {
    j["device"]["sm_count"] = sm;
    std::ofstream(other) << j.dump(1);
    CHECK(thrown_message<TransferError>([&] { (void)load_transfer_source(other, f, n16m, catalog()); })
              .find(other.string() + ":") == 0);
    CHECK(thrown_message<TransferError>([&] { (void)load_transfer_source(other, f, n16m, catalog()); })
              .find("field 'device.sm_count'") != std::string::npos);
  }
  std::ofstream(other) << "{\n \"trials\": 1e400\n}";
  const std::string overflow = thrown_message<TransferError>([&] { (void)load_transfer_source(other, f, n16m, catalog()); });
  CHECK(overflow.find(other.string() + ":2: not valid JSON") == 0);
  CHECK(overflow.find("[json.exception") == std::string::npos);
  fs::remove(other);
}

TEST_CASE("a profile store's best configuration and runner-ups are a source too") {
  const auto& f = templates::filter_description();
  const Problem problem = complete_problem(f.problem, {{"n", 1 << 24}});
  const fs::path file = temp_file("memtune-transfer-profile");
  ProfileEntry e;
  e.device = {"NVIDIA H100 80GB HBM3", 9, 0, 132};
  e.template_name = "filter";
  e.problem = problem;
  e.config = {{"block_size", 256}, {"packing", 1}, {"items", 4}, {"vec", 4}, {"align", 1}};
  e.time_s = 49e-6;
  e.runner_ups = nlohmann::json::array(
      {{{"config", {{"block_size", 128}, {"packing", 1}, {"items", 4}, {"vec", 4}, {"align", 1}}}, {"time_s", 50e-6}}});
  ProfileStore(file).save(e);
  const TransferSource s = load_transfer_source(file, f, problem, catalog());
  CHECK(s.kind == "profile store");
  CHECK(s.trials.size() == 2);
  CHECK(s.target.name == "h100-sxm");
  fs::remove(file);
  fs::remove(file.string() + ".lock");
}

namespace {

// The filter's H100 space at 16M and a source that measured its first two
// configurations (times in seconds).
struct TwoMeasured {
  search::Space space;
  std::vector<search::Config> configs;
  TransferSource source;
  TwoMeasured(double first_s, double second_s) {
    const auto& f = templates::filter_description();
    space = f.space(complete_problem(f.problem, {{"n", 1 << 24}}), catalog().find("h100-sxm"));
    configs = space.enumerate();
    source.axes = {"align", "block_size", "items", "packing", "vec"};
    source.trials = {{space.config_to_json(configs[0]), first_s}, {space.config_to_json(configs[1]), second_s}};
  }
};

} // namespace

TEST_CASE("transfer_times: measured x target / source per configuration; the rest by the source's median ratio") {
  TwoMeasured m(10.0, 20.0);
  const auto& configs = m.configs;
  const search::Space& space = m.space;
  const TransferSource& s = m.source;
  const std::map<search::Config, double> target{{configs[0], 4.0}, {configs[1], 12.0}, {configs[2], 6.0}};
  const std::map<search::Config, double> source{{configs[0], 5.0}, {configs[1], 10.0}, {configs[2], 3.0}};
  const Transferred t = transfer_times(s, space, target, source);
  CHECK(t.seconds.at(configs[0]) == doctest::Approx(8.0));  // 10 x 4 / 5
  CHECK(t.seconds.at(configs[1]) == doctest::Approx(24.0)); // 20 x 12 / 10
  CHECK(t.median_ratio == doctest::Approx(2.0));            // measured / modeled on the source: 2 and 2
  CHECK(t.seconds.at(configs[2]) == doctest::Approx(12.0)); // not measured: 6 x 2
  CHECK(t.model_only == 1);
}

TEST_CASE("apply_memory_floor: the source's measured DRAM busy time, scaled by the peaks, bounds the transfer") {
  TwoMeasured m(100e-6, 50e-6);
  const auto& configs = m.configs;
  const search::Space& space = m.space;
  TransferSource& s = m.source;
  s.copy_ceiling_gbps = 4000; // source: peak 4800, a copy at 4000 GB/s
  MemoryFloorInputs in;
  in.source_peak_gbs = 4800;
  in.target_peak_gbs = 3200; // the target's DRAM is 1.5x slower
  in.dram_bytes = {{configs[0], 200e6}, {configs[1], 200e6}, {configs[2], 200e6}};
  in.overlap_units = {{configs[0], 4}, {configs[1], 4}};
  Transferred t;
  // configs[0]: measured 100 us, of which 50 us DRAM busy (200 MB at 4000 GB/s):
  // floor 75 us on the target; the model's ratio said 60 us, below it.
  // configs[1]: measured at the ceiling (50 us): floor 75 us; the ratio said 90 us.
  // configs[2]: not measured, unchanged.
  t.seconds = {{configs[0], 60e-6}, {configs[1], 90e-6}, {configs[2], 30e-6}};
  SUBCASE("the floor and the ratio overlap imperfectly, k units per SM") {
    apply_memory_floor(t, s, space, in);
    CHECK(t.seconds.at(configs[0]) == doctest::Approx(75e-6 + 60e-6 / 4));
    CHECK(t.seconds.at(configs[1]) == doctest::Approx(90e-6 + 75e-6 / 4));
    CHECK(t.seconds.at(configs[2]) == doctest::Approx(30e-6));
  }
  SUBCASE("without a measured copy ceiling (a profile store), nothing changes") {
    s.copy_ceiling_gbps = 0;
    apply_memory_floor(t, s, space, in);
    CHECK(t.seconds.at(configs[0]) == doctest::Approx(60e-6));
    CHECK(t.seconds.at(configs[1]) == doctest::Approx(90e-6));
  }
}

namespace {

// A modeled evaluation: its time [s], DRAM bytes and overlap units.
Evaluation modeled(const search::Config& c, double seconds, double dram_bytes, int units) {
  Evaluation e;
  e.config = c;
  e.timing = Timing{};
  e.timing->median_s = seconds;
  e.model = ModelBreakdown{};
  e.model->dram_bytes = dram_bytes;
  e.model->overlap_units_per_sm = units;
  return e;
}

} // namespace

TEST_CASE("transfer_predictions: from both GPUs' modeled evaluations, the ratio and the measured memory floor") {
  TwoMeasured m(100e-6, 50e-6);
  const auto& configs = m.configs;
  TransferSource& s = m.source;
  s.copy_ceiling_gbps = 4000;
  s.target.dram_bandwidth_gbs = 4800;
  Target target;
  target.dram_bandwidth_gbs = 3200;
  // The same figures as apply_memory_floor's case: ratios give 60 us and 90 us,
  // the floor 75 us; the unmeasured third is the model's 30 us x the median
  // measured / modeled (100/50 and 50/25: 2).
  const std::vector<Evaluation> target_model{modeled(configs[0], 60e-6, 0, 4), modeled(configs[1], 45e-6, 0, 4),
                                             modeled(configs[2], 15e-6, 0, 4)};
  const std::vector<Evaluation> source_model{modeled(configs[0], 50e-6, 200e6, 1), modeled(configs[1], 25e-6, 200e6, 1),
                                             modeled(configs[2], 10e-6, 200e6, 1)};
  const Transferred t = transfer_predictions(s, target, m.space, target_model, m.space, source_model);
  CHECK(t.seconds.at(configs[0]) == doctest::Approx(120e-6 + 75e-6 / 4)); // ratio 100 x 60/50 = 120, above the floor
  CHECK(t.seconds.at(configs[1]) == doctest::Approx(90e-6 + 75e-6 / 4));  // ratio 50 x 45/25 = 90
  CHECK(t.seconds.at(configs[2]) == doctest::Approx(30e-6));              // not measured: 15 x 2, no floor
  CHECK(t.model_only == 1);
  // A failed target evaluation is not predicted.
  std::vector<Evaluation> failed = target_model;
  failed[1].status = Status::launch_failed;
  CHECK(transfer_predictions(s, target, m.space, failed, m.space, source_model).seconds.count(configs[1]) == 0);
}

TEST_CASE("the bayes prior from another GPU is the transferred prediction, measured memory floor included") {
  // The wave 2 H200 recording of the row-major mat-vec, as the prior for the
  // H100: the configurations with 4 threads a row ran near the H200's copy
  // ceiling, which the plain ratio misses (docs/model.md, the measured memory floor).
  const auto& mv = templates::matvec_description();
  const Problem problem = complete_problem(mv.problem, {{"rows", 8192}, {"cols", 8192}, {"layout", 1}});
  const Target& h100 = catalog().find("h100-sxm");
  const TransferSource s = load_transfer_source(bench_data / "catalogue" / "h200_matvec_row_8192.json", mv, problem, catalog());
  REQUIRE(s.copy_ceiling_gbps > 0);
  const search::Space space = mv.space(problem, h100);
  const search::Space source_space = mv.space(problem, s.target);
  const auto prior = transfer_prior(mv, problem, h100, s, space);
  // The floor per configuration, from the no-register estimates the prior uses.
  const double scale = s.target.dram_bandwidth_gbs / h100.dram_bandwidth_gbs;
  std::size_t checked = 0, floor_binds = 0;
  for (const auto& c : space.enumerate()) {
    const auto m = s.measured(space, c);
    const auto sc = corresponding_config(space, c, source_space);
    if (!m || !sc) continue;
    const Evaluation target_e = model_estimate(mv, problem, h100, c, mv.bytes_moved(problem));
    const Evaluation source_e = model_estimate(mv, problem, s.target, *sc, mv.bytes_moved(problem));
    if (!target_e.timing || !source_e.timing || !source_e.model) continue;
    const double ratio = *m * target_e.timing->median_s / source_e.timing->median_s;
    const double floor = std::min(*m, source_e.model->dram_bytes / (s.copy_ceiling_gbps * 1e9)) * scale;
    CHECK(prior(c) >= std::log(floor) - 1e-9);
    if (floor > ratio) ++floor_binds;
    CHECK(prior(c) > std::log(ratio)); // the floor always adds at least min(M, C) / k
    ++checked;
  }
  CHECK(checked > 100);
  CHECK(floor_binds > 0); // the case the floor is for is in this recording
}

TEST_CASE("a transfer source reads the recording's measured copy ceiling") {
  const TransferSource s = load_transfer_source(bench_data / "catalogue" / "h100_filter_16M.json", templates::filter_description(),
                                                complete_problem(templates::filter_description().problem,
                                                                 {{"n", 1 << 24}}),
                                                catalog());
  CHECK(s.copy_ceiling_gbps > 1000);
}

TEST_CASE("a configuration maps to another GPU's space on the axes both have") {
  const auto& f = templates::filter_description();
  const Problem problem = complete_problem(f.problem, {{"n", 1 << 24}});
  const search::Space k20 = f.space(problem, catalog().find("k20"));
  const search::Space h100 = f.space(problem, catalog().find("h100-sxm"));
  const search::Config kepler = k20.enumerate().front();
  const auto mapped = corresponding_config(k20, kepler, h100);
  REQUIRE(mapped.has_value());
  CHECK(h100.format(*mapped) + " bank_mode=" + std::to_string(kepler.at("bank_mode")) == k20.format(kepler));
  CHECK_FALSE(corresponding_config(h100, *mapped, k20).has_value()); // the H100 has no bank mode to give
}

TEST_CASE("a configuration recorded before its space grew maps with the new axis at its first value") {
  const auto& f = templates::filter_description();
  const Problem problem = complete_problem(f.problem, {{"n", 1 << 24}});
  const search::Space today = f.space(problem, catalog().find("h100-sxm"));
  // The recording's space: today's without its last axis.
  search::Space older;
  for (std::size_t i = 0; i + 1 < today.axes().size(); ++i) older.add(today.axes()[i]);
  const search::Axis& grown = today.axes().back();
  bool checked = false;
  for (const search::Config& c : today.enumerate()) {
    if (c.at(grown.name) != grown.values.front()) continue;
    checked = true;
    search::Config recorded;
    for (const auto& axis : older.axes()) recorded.set(axis.name, c.at(axis.name));
    const auto mapped = corresponding_config(older, recorded, today);
    REQUIRE(mapped.has_value());
    CHECK(*mapped == c);
    break;
  }
  CHECK(checked);
}

TEST_CASE("transferring a GPU's run to itself gives back its times; to another GPU, each scaled by the model's ratio") {
  const auto& f = templates::filter_description();
  const Problem problem = complete_problem(f.problem, {{"n", 1 << 22}});
  const Target& h100 = catalog().find("h100-sxm");
  const fs::path source = modeled_recording(h100, problem);
  TuneOptions o;
  o.only = {{"block_size", "256"}, {"packing", "1"}, {"items", "4"}};
  o.transfer_from = source;
  const TuningResult same = tune_modeled(f, problem, h100, o);
  CHECK(same.transferred_from.find("(recording): " + h100.display_name) != std::string::npos);
  o.transfer_from.reset();
  o.exact_top = 0;
  const TuningResult modeled = tune_modeled(f, problem, h100, o);
  REQUIRE(same.evaluations.size() == modeled.evaluations.size());
  for (std::size_t i = 0; i < same.evaluations.size(); ++i)
    if (same.evaluations[i].ok()) CHECK(same.evaluations[i].timing->median_s == doctest::Approx(modeled.evaluations[i].timing->median_s));

  const Target& h200 = catalog().find("h200");
  o.transfer_from = source;
  const TuningResult other = tune_modeled(f, problem, h200, o);
  o.transfer_from.reset();
  const TuningResult h200_model = tune_modeled(f, problem, h200, o);
  // Measured (here: the H100 model) x H200 model / H100 model = the H200 model.
  for (std::size_t i = 0; i < other.evaluations.size(); ++i)
    if (other.evaluations[i].ok())
      CHECK(other.evaluations[i].timing->median_s == doctest::Approx(h200_model.evaluations[i].timing->median_s));
  CHECK(other.strategy == "grid (transferred)");

  // The same source as a bayes prior for the H100: its argmin is the source's best.
  const search::Space space = f.space(problem, h100);
  const auto prior = transfer_prior(f, problem, h100, load_transfer_source(source, f, problem, catalog()), space);
  const Evaluation* best = modeled.best();
  REQUIRE(best != nullptr);
  double lowest = INFINITY;
  for (const auto& c : space.enumerate()) lowest = std::min(lowest, prior(c));
  CHECK(std::isfinite(lowest));
  fs::remove(source);
}

TEST_CASE("a kernel without an access pattern transfers at one ratio, the peak bandwidths': the source's ranking") {
  KernelDescription d = asset_description("transpose.json"); // a JSON description, here without its model section
  d.model.reset();
  REQUIRE_FALSE(d.has_model());
  const Problem problem = d.complete({});
  const Target& h100 = catalog().find("h100-sxm");
  const Target& h200 = catalog().find("h200");
  TuneOptions o;
  o.only = {{"TILE", "32"}};
  // The source: compiled for the H100 (no time), then given "measured" times,
  // the slowest first in grid order; one configuration is left out of the
  // recording (not measured there).
  TuningResult measured = tune_modeled(d, problem, h100, o);
  REQUIRE(measured.evaluations.size() == 8);
  for (std::size_t i = 0; i < measured.evaluations.size(); ++i) {
    Timing t;
    t.median_s = t.min_s = t.max_s = 1e-4 * static_cast<double>(8 - i);
    t.samples = 10;
    measured.evaluations[i].timing = t;
  }
  constexpr std::size_t unmeasured = 3;
  const std::vector<Evaluation> all = measured.evaluations;
  measured.evaluations.erase(measured.evaluations.begin() + unmeasured);
  measured.measured = true;
  measured.device.name = h100.display_name;
  const fs::path file = temp_file("memtune-transfer-json-kernel");
  std::ofstream(file) << to_recording(measured).to_json().dump();
  measured.evaluations = all;

  o.transfer_from = file;
  const TuningResult r = tune_modeled(d, problem, h200, o);
  CHECK(r.time_modeled);
  CHECK(r.strategy == "grid (transferred)");
  CHECK(r.transfer_scaling.find("one ratio, the peak DRAM bandwidths'") != std::string::npos);
  CHECK(r.transfer_scaling.find("1 of the 8 configurations that fit the target were not measured") != std::string::npos);
  const double ratio = h100.dram_bandwidth_gbs / h200.dram_bandwidth_gbs;
  REQUIRE(r.evaluations.size() == 8);
  for (std::size_t i = 0; i < r.evaluations.size(); ++i) {
    const Evaluation& e = r.evaluations[i];
    CAPTURE(r.space.format(e.config));
    REQUIRE(e.config == measured.evaluations[i].config);
    if (i == unmeasured) {
      CHECK_FALSE(e.timing.has_value());
    } else {
      REQUIRE(e.timing.has_value());
      CHECK(e.timing->median_s == doctest::Approx(1e-4 * static_cast<double>(8 - i) * ratio));
    }
  }
  REQUIRE(r.best() != nullptr);
  CHECK(r.best()->config == measured.evaluations.back().config);

  // The same source as a bayes prior: the source's ranking; the unmeasured one the slowest.
  const TransferSource source = load_transfer_source(file, d, problem, catalog());
  const auto prior = transfer_prior(d, problem, h200, source, r.space);
  CHECK(prior(r.evaluations.back().config) < prior(r.evaluations[1].config));
  CHECK(prior(r.evaluations[unmeasured].config) == doctest::Approx(prior(r.evaluations[0].config)));

  Target no_peak = h200;
  no_peak.dram_bandwidth_gbs = 0;
  CHECK(thrown_message<TransferError>([&] { (void)transfer_by_bandwidth(source, no_peak, r.space, {}); }).find("no peak DRAM bandwidth") !=
        std::string::npos);
  fs::remove(file);
}
