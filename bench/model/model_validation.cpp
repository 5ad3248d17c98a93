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
#include <memtune/io/errors.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/probe/prior.hpp>
#include <memtune/rank_correlation.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/targets.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tuner.hpp>

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

// A recording's measured times by configuration (its JSON text).
std::map<std::string, double> times_by_config(const memtune::search::Recording& rec) {
  std::map<std::string, double> times;
  for (const auto& t : rec.trials)
    if (t.ok()) times[rec.space.config_to_json(t.config).dump()] = *t.time_s;
  return times;
}

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

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", s);
  return buf;
}

// The model's prediction for every configuration of a recording, by the
// configuration's JSON: a template's through the modeled tuner (every
// configuration compiled for its registers), a probe's through the
// descriptions the probe runs with (probe/prior.hpp).
struct Predictions {
  std::map<std::string, double> seconds;
  std::map<std::string, std::string> bound; // the binding bound ("" for probes)
  std::map<std::string, std::string> facts; // CSV columns: registers ... overlap units
};

Predictions predict_recording(const memtune::search::Recording& rec, const memtune::Problem& problem,
                              const memtune::Target& target) {
  Predictions p;
  if (auto prior = memtune::probe::probe_prior(rec.template_name, problem, target)) {
    for (const auto& t : rec.trials) {
      const std::string key = rec.space.config_to_json(t.config).dump();
      p.seconds[key] = std::exp((*prior)(t.config));
      p.bound[key] = "";
      p.facts[key] = ",,,,,,,,,,";
    }
    return p;
  }
  const memtune::KernelDescription& kernel = memtune::templates::find_description(rec.template_name);
  memtune::TuneOptions options;
  options.exact_top = 0; // predict every configuration, not just the model's top k
  const memtune::TuningResult predicted = memtune::tune_modeled(kernel, problem, target, options);
  for (const auto& e : predicted.evaluations) {
    if (!e.ok()) continue;
    const std::string key = predicted.space.config_to_json(e.config).dump();
    p.seconds[key] = e.timing->median_s;
    p.bound[key] = e.model ? memtune::model::to_string(e.model->time.binding) : "";
    std::string f = std::to_string(e.resources.registers) + "," +
                    std::to_string(e.resources.spill_store_bytes + e.resources.spill_load_bytes) + "," +
                    std::to_string(e.occupancy.warps_per_sm) + "," + std::to_string(e.occupancy.blocks_per_sm);
    if (e.model)
      for (const auto& b : e.model->time.bounds) f += "," + seconds_text(b.modelled ? b.seconds : 0.0);
    f += "," + (e.model ? std::to_string(e.model->overlap_units_per_sm) : std::string());
    p.facts[key] = f;
  }
  return p;
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
  if (csv) std::fprintf(csv, "recording,config,measured_s,predicted_s,bound,registers,spill_bytes,warps_per_sm,blocks_per_sm,dram_s,l2_s,smem_s,issue_s,pipeline_s,launch_s,overlap_units\n");

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
    const Predictions p = predict_recording(rec, problem, target);
    const std::map<std::string, double>& predicted_s = p.seconds;
    std::vector<double> measured, model;
    double best_measured = INFINITY, pick_measured = 0, pick_predicted = INFINITY;
    for (const auto& t : rec.trials) {
      if (!t.ok()) continue;
      auto it = predicted_s.find(rec.space.config_to_json(t.config).dump());
      if (it == predicted_s.end()) continue;
      measured.push_back(*t.time_s);
      model.push_back(it->second);
      if (csv)
        std::fprintf(csv, "%s,\"%s\",%g,%g,%s,%s\n", file.c_str(), rec.space.format(t.config).c_str(), *t.time_s,
                     it->second, p.bound.at(it->first).c_str(), p.facts.at(it->first).c_str());
      best_measured = std::min(best_measured, *t.time_s);
      if (it->second < pick_predicted) {
        pick_predicted = it->second;
        pick_measured = *t.time_s;
      }
    }
    if (measured.size() < 3) {
      std::cerr << file << ": fewer than 3 configurations both measured and predicted\n";
      status = 1;
      continue;
    }
    const double rho = memtune::spearman(measured, model);
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
                measured.size(), rho, pick_predicted * 1e6, pick_measured * 1e6,
                100.0 * (pick_measured / best_measured - 1.0), repeat_column.c_str());
  }
  if (csv) std::fclose(csv);
  return status;
}

// A bad recording or target file is a message and exit code 1, never `terminate called`.
int main(int argc, char** argv) {
  return memtune::run_reporting_errors("memtune_model_validation", std::cerr, [&] { return bench_main(argc, argv); });
}
