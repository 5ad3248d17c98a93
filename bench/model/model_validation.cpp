// Model against measurement: predicts every configuration of a recorded space
// (measured on a GPU, see `memtune ... --record`) for the catalogue target of
// that GPU, and reports the Spearman rank correlation between predicted and
// measured times, and how far the model's pick is from the measured best.
// Runs without a GPU.
//
// With --repeat, each recording is paired with a second measurement of the same
// space (the same command run again), and the table adds the Spearman rank
// correlation between the two measurements: the most a model that predicted
// one of them exactly could score against the other. Where the space's times
// differ by less than the run-to-run noise, that ceiling is below 1.
//
//   memtune_model_validation bench/data/h100_filter_16M.json [--target h100-sxm | --target-file probed.json]
//                            [--repeat second_filter_record.json]
#include "recording_predictions.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/probe/prior.hpp>
#include <memtune/model/rank_correlation.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tune/tuner.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace {

using memtune::bench::times_by_config;

// Spearman between two measurements of one space, over the configurations
// both measured.
double repeat_spearman(const memtune::search::Recording& first, const memtune::search::Recording& second,
                       const std::string& second_file) {
  if (second.template_name != first.template_name)
    throw std::runtime_error(second_file + ": a recording of " + second.template_name + ", not of " +
                             first.template_name + "; --repeat needs the same space measured again");
  const std::map<std::string, double> again = times_by_config(second);
  std::vector<double> a, b;
  for (const auto& [config, time_s] : times_by_config(first)) {
    const auto it = again.find(config);
    if (it == again.end()) continue;
    a.push_back(time_s);
    b.push_back(it->second);
  }
  if (a.size() < 3)
    throw std::runtime_error(second_file + ": fewer than 3 configurations in common with the recording it repeats");
  return memtune::spearman(a, b);
}

} // namespace

static int bench_main(int argc, char** argv) {
  CLI::App app{"memtune model validation: predicted vs measured ranking of a recorded space"};
  std::vector<std::string> files;
  std::string target_name;
  std::string dump;
  std::string target_file;
  app.add_option("recordings", files, "recordings measured on a GPU (memtune ... --record)")->required()->check(CLI::ExistingFile);
  app.add_option("--target", target_name, "catalogue target to predict for (default: the recording's GPU)");
  app.add_option("--target-file", target_file,
                 "predict for this target profile instead, e.g. one calibrated by memtune probe --save-target")
      ->check(CLI::ExistingFile);
  std::vector<std::string> repeats;
  app.add_option("--repeat", repeats,
                 "a second measurement of each recording's space, in the same order: adds their Spearman (the noise "
                 "ceiling)")
      ->check(CLI::ExistingFile);
  app.add_option("--dump", dump, "write every configuration's measured and predicted time (CSV)");
  CLI11_PARSE(app, argc, argv);
  if (!repeats.empty() && repeats.size() != files.size()) {
    std::cerr << "--repeat: " << repeats.size() << " files for " << files.size()
              << " recordings; give one second measurement per recording, in the same order\n";
    return 2;
  }
  std::FILE* csv = dump.empty() ? nullptr : std::fopen(dump.c_str(), "w");
  if (csv) std::fprintf(csv, "recording,config,measured_s,predicted_s,bound,registers,spill_bytes,warps_per_sm,blocks_per_sm,dram_s,l2_s,smem_s,issue_s,pipeline_s,launch_s,copy_engine_s,overlap_units,dram_bytes,inflight_per_sm,latency_gbs,exposed_s\n");

  std::printf("%-34s %-10s %8s %8s %10s %10s %10s%s\n", "recording", "target", "configs", "spearman", "model pick",
              "its time", "vs best", repeats.empty() ? "" : "   repeat");
  int status = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::string& file = files[f];
    const memtune::search::Recording rec = memtune::search::load_recording(file);
    const memtune::Problem problem = rec.problem.get<memtune::Problem>();
    const std::string name = target_name.empty() ? rec.device.at("name").get<std::string>() : target_name;
    const memtune::Target target =
        target_file.empty() ? memtune::load_targets().find(name) : memtune::model::load_target_file(target_file);
    const memtune::bench::Predictions p = memtune::bench::predict_recording(rec, problem, target);
    if (csv)
      for (const auto& t : rec.trials) {
        if (!t.ok()) continue;
        const auto key = memtune::bench::key_in(p.space, rec, t.config);
        if (!key) continue;
        auto it = p.seconds.find(*key);
        if (it == p.seconds.end()) continue;
        std::fprintf(csv, "%s,\"%s\",%g,%g,%s,%s\n", file.c_str(), rec.space.format(t.config).c_str(), *t.time_s,
                     it->second, p.bound.at(it->first).c_str(), p.facts.at(it->first).c_str());
      }
    memtune::bench::Score sc;
    try {
      sc = memtune::bench::score(memtune::bench::measured_in_order(rec, p.space), p.seconds, p.rank);
    } catch (const std::runtime_error& e) {
      std::cerr << file << ": " << e.what() << "\n";
      status = 1;
      continue;
    }
    std::string repeat_column;
    if (!repeats.empty()) {
      char buf[32];
      try {
        std::snprintf(buf, sizeof buf, " %8.3f",
                      repeat_spearman(rec, memtune::search::load_recording(repeats[f]), repeats[f]));
        repeat_column = buf;
      } catch (const std::exception& e) {
        std::cerr << "--repeat: " << e.what() << "\n";
        repeat_column = "        -";
        status = 1;
      }
    }
    std::string shown = file.size() > 34 ? "..." + file.substr(file.size() - 31) : file;
    std::printf("%-34s %-10s %8zu %8.3f %9.2fus %9.2fus %9.1f%%%s\n", shown.c_str(), target.name.c_str(),
                sc.configs, sc.spearman, sc.pick_predicted_s * 1e6, sc.pick_measured_s * 1e6, 100.0 * sc.pick_error(),
                repeat_column.c_str());
  }
  if (csv) std::fclose(csv);
  return status;
}

// A bad recording or target file is a message and exit code 1, never `terminate called`.
int main(int argc, char** argv) {
  return memtune::run_reporting_errors("memtune_model_validation", std::cerr, [&] { return bench_main(argc, argv); });
}
