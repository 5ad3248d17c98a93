// The model and the cross-GPU transfer against measurement, per template and
// GPU: for every template recording in the data folder (h100_<name>.json,
// h200_<name>.json, ... : whole grids measured with memtune ... --record at
// each template's default size), prints
//
//   - the model's Spearman rank correlation with the measurement, the share
//     of pairs measured more than 3 % apart (beyond noise) that it orders
//     right, and how far the model's pick is from the measured best (the
//     model predicts the GPU's catalogue target; no calibration);
//   - for each other GPU with a recording of the same space: the pick and
//     Spearman of the transfer from that GPU (memtune ... --target GPU --from
//     OTHER_RECORDING), against this GPU's measurement.
//
// Recordings that are missing are listed, not fatal: the H200 ones come from
// a GPU run (scripts/model_gpu_runs.sh). Runs without a GPU.
//
//   memtune_gpu_validation [--data bench/data] [--gpu h100=h100-sxm --gpu h200=h200]
#include "recording_predictions.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/io/number_text.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tune/transfer.hpp>
#include <memtune/tune/tuner.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Gpu {
  std::string prefix; // file name prefix: "h100"
  std::string target; // catalogue target: "h100-sxm"
};

std::string percent(double fraction) { return memtune::number_text("%+.1f%%", 100 * fraction); }

std::string number(double v) { return memtune::number_text("%.3f", v); }

// The fraction of pairs measured more than the noise apart that the
// prediction orders right: "85%", or "-" when no pair is that far apart.
std::string pairs(const memtune::bench::Score& s) {
  return s.beyond_noise.pairs == 0 ? "-" : memtune::number_text("%.0f%%", 100 * s.beyond_noise.fraction);
}

constexpr const char* row_format = "%-26s %-6s %7s %8s %6s %10s   %-6s %8s %6s %10s\n";

} // namespace

static int bench_main(int argc, char** argv) {
  CLI::App app{"memtune GPU validation: the model's and the transfer's picks against recordings of several GPUs"};
  std::string data = MEMTUNE_BENCH_DATA_DIR;
  std::vector<std::string> gpu_args{"h100=h100-sxm", "h200=h200"};
  app.add_option("--data", data, "folder of recordings named <gpu>_<space>.json")->check(CLI::ExistingDirectory);
  app.add_option("--gpu", gpu_args, "PREFIX=TARGET: recordings <PREFIX>_*.json were measured on catalogue TARGET")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  std::vector<Gpu> gpus;
  for (const auto& g : gpu_args) {
    const auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == g.size()) {
      std::cerr << "--gpu takes PREFIX=TARGET, got '" << g << "'\n";
      return 2;
    }
    gpus.push_back({g.substr(0, eq), g.substr(eq + 1)});
  }
  const memtune::model::TargetCatalog catalog = memtune::load_targets();

  // The spaces: every <prefix>_<space>.json of a template (probes and target
  // profiles are not template recordings), over all GPUs.
  std::set<std::string> spaces;
  for (const auto& entry : fs::directory_iterator(data)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() != ".json") continue;
    for (const auto& g : gpus)
      if (name.rfind(g.prefix + "_", 0) == 0) {
        const std::string space = name.substr(g.prefix.size() + 1, name.size() - g.prefix.size() - 6);
        if (space.rfind("probe", 0) != 0) spaces.insert(space);
      }
  }

  std::printf(row_format, "space", "GPU", "configs", "spearman", "pairs", "model pick", "from", "spearman", "pairs",
              "transfer");
  std::vector<std::string> missing, errors;
  for (const auto& space : spaces) {
    std::map<std::string, memtune::search::Recording> recordings; // by GPU prefix
    for (const auto& g : gpus) {
      const fs::path file = fs::path(data) / (g.prefix + "_" + space + ".json");
      if (!fs::exists(file)) {
        missing.push_back(file.string());
        continue;
      }
      try {
        memtune::search::Recording rec = memtune::search::load_recording(file);
        if (rec.template_name.rfind("probe", 0) == 0) continue;
        recordings.emplace(g.prefix, std::move(rec));
      } catch (const std::exception& e) {
        errors.push_back(e.what());
      }
    }
    for (const auto& g : gpus) {
      const auto it = recordings.find(g.prefix);
      if (it == recordings.end()) continue;
      const memtune::search::Recording& rec = it->second;
      try {
        const memtune::Target& target = catalog.find(g.target);
        const memtune::Problem problem = rec.problem.get<memtune::Problem>();
        const memtune::bench::Predictions predicted = memtune::bench::predict_recording(rec, problem, target);
        const auto measured = memtune::bench::measured_in_order(rec, predicted.space);
        const auto model = memtune::bench::score(measured, predicted.seconds, predicted.rank);
        bool first = true;
        for (const auto& other : gpus) {
          if (other.prefix == g.prefix || !recordings.count(other.prefix)) continue;
          memtune::TuneOptions options;
          options.transfer_from = fs::path(data) / (other.prefix + "_" + space + ".json");
          const memtune::TuningResult transferred =
              memtune::tune_modeled(memtune::templates::find_description(rec.template_name), problem, target, options);
          const auto t = memtune::bench::score(measured, memtune::bench::times_by_config(transferred),
                                               memtune::bench::rank_by_config(transferred));
          std::printf(row_format, first ? space.c_str() : "", first ? g.prefix.c_str() : "",
                      first ? std::to_string(model.configs).c_str() : "", first ? number(model.spearman).c_str() : "",
                      first ? pairs(model).c_str() : "", first ? percent(model.pick_error()).c_str() : "",
                      other.prefix.c_str(), number(t.spearman).c_str(), pairs(t).c_str(),
                      percent(t.pick_error()).c_str());
          first = false;
        }
        if (first)
          std::printf(row_format, space.c_str(), g.prefix.c_str(), std::to_string(model.configs).c_str(),
                      number(model.spearman).c_str(), pairs(model).c_str(), percent(model.pick_error()).c_str(), "-",
                      "-", "-", "-");
      } catch (const std::exception& e) {
        errors.push_back(g.prefix + "_" + space + ".json: " + e.what());
      }
    }
  }
  std::printf("\nmodel pick / transfer: the pick's measured time against the measured best (+5.0%% = 5 %% slower)\n"
              "pairs: of the configuration pairs measured more than %.0f %% apart (beyond run-to-run noise), the share\n"
              "the prediction orders as measured (Spearman also counts the order of configurations within noise)\n",
              100 * memtune::bench::noise_gap);
  if (!missing.empty()) {
    std::printf("missing (measure with scripts/model_gpu_runs.sh on that GPU):\n");
    for (const auto& m : missing) std::printf("  %s\n", m.c_str());
  }
  for (const auto& e : errors) std::fprintf(stderr, "error: %s\n", e.c_str());
  return errors.empty() ? 0 : 1;
}

// A bad recording or target file is a message and exit code 1, never `terminate called`.
int main(int argc, char** argv) {
  return memtune::run_reporting_errors("memtune_gpu_validation", std::cerr, [&] { return bench_main(argc, argv); });
}
