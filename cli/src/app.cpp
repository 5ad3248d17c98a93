#include "app.hpp"

#include "probe_command.hpp"
#include "recording.hpp"
#include "shard_option.hpp"
#include "size_parse.hpp"
#include "table_printer.hpp"
#include "transfer_options.hpp"

#include <memtune/compile/nvrtc_library.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/profile_store.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/targets.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/transfer.hpp>
#include <memtune/tuner.hpp>
#include <memtune/version.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

namespace memtune::cli {
namespace {

struct CommonOptions {
  std::string strategy = "grid";
  std::size_t budget = 0;
  std::size_t patience = 0;
  double time_budget = 0.0;
  std::uint64_t seed = 1;
  int device = 0;
  bool warm = false;
  bool json = false;
  std::string save;
  std::string record;
  std::size_t top = 10;
  std::string cache_dir;
  std::string target = "local";
  bool no_cache = false;
  bool no_model_prior = false;
  bool quiet = false;
  std::vector<std::string> compare;
  std::vector<std::string> only; // "axis=value"
  std::string shard;             // "I/N"; empty: from a Slurm job array, else none
  TransferOptions transfer;      // --from, --nvrtc-kepler
};

struct TemplateCommand {
  const KernelTemplate* kernel = nullptr;
  CLI::App* app = nullptr;
  std::map<std::string, std::string> problem_text; // as typed; parsed after CLI11
};

void write_file(const std::string& path, const nlohmann::json& j) {
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error("cannot write " + path);
}

int list_targets(std::ostream& out) {
  const model::TargetCatalog catalog = load_targets();
  out << "targets in " << targets_folder().string() << " (any other than local is modeled):\n";
  char line[200];
  std::snprintf(line, sizeof line, "  %-10s %-26s %-6s %5s %10s %8s %9s\n", "name", "GPU", "arch", "SMs", "DRAM GB/s",
                "L2 MiB", "banks");
  out << line;
  std::snprintf(line, sizeof line, "  %-10s %-26s %-6s %5s %10s %8s %9s\n", "local", "the GPU in this machine", "-", "-",
                "-", "-", "-");
  out << line;
  for (const Target& t : catalog.targets()) {
    std::string banks;
    for (int w : t.bank_widths_bytes) banks += (banks.empty() ? "" : "/") + std::to_string(w) + "B";
    std::snprintf(line, sizeof line, "  %-10s %-26s %-6s %5d %10.0f %8.1f %9s\n", t.name.c_str(),
                  t.display_name.substr(0, 26).c_str(), t.arch().c_str(), t.sm_count, t.dram_bandwidth_gbs,
                  static_cast<double>(t.l2_bytes) / (1 << 20), banks.c_str());
    out << line;
  }
  return kExitOk;
}

int run_template(const TemplateCommand& cmd, const CommonOptions& o, std::ostream& out, std::ostream& err) {
  Problem problem;
  for (const auto& [name, text] : cmd.problem_text) {
    if (text.empty()) continue;
    const auto params = cmd.kernel->problem_parameters();
    const ProblemParameter& param =
        *std::find_if(params.begin(), params.end(), [&](const ProblemParameter& p) { return p.name == name; });
    if (!param.labels.empty()) {
      const auto it = std::find(param.labels.begin(), param.labels.end(), text);
      if (it == param.labels.end()) {
        std::string known;
        for (const auto& l : param.labels) known += (known.empty() ? "" : ", ") + l;
        err << "memtune " << cmd.kernel->name() << ": --" << name << " " << text << ": expected one of " << known << "\n";
        return kExitUsage;
      }
      problem[name] = it - param.labels.begin();
      continue;
    }
    const auto v = parse_size(text);
    if (!v) {
      err << "memtune " << cmd.kernel->name() << ": --" << name << " " << text
          << ": not a size (examples: 1000003, 64K, 16M)\n";
      return kExitUsage;
    }
    problem[name] = *v;
  }
  try {
    problem = complete_problem(cmd.kernel->problem_parameters(), problem);
  } catch (const std::invalid_argument& e) {
    err << "memtune " << cmd.kernel->name() << ": " << e.what() << "\n";
    return kExitUsage;
  }

  try {
    check_baseline_names(*cmd.kernel, o.compare);
  } catch (const std::invalid_argument& e) {
    err << "memtune " << cmd.kernel->name() << ": --compare: " << e.what() << "\n";
    return kExitUsage;
  }

  TuneOptions t;
  t.compare = o.compare;
  t.strategy = o.strategy;
  t.budget = o.budget;
  t.patience = o.patience;
  t.time_budget_s = o.time_budget;
  t.seed = o.seed;
  t.device = o.device;
  t.measure.flush_l2 = !o.warm;
  t.use_cache = !o.no_cache;
  for (const std::string& fixed : o.only) {
    const auto eq = fixed.find('=');
    if (eq == std::string::npos || eq == 0) {
      err << "memtune " << cmd.kernel->name() << ": --only takes AXIS=VALUE, got '" << fixed << "'\n";
      return kExitUsage;
    }
    t.only[fixed.substr(0, eq)] = fixed.substr(eq + 1);
  }
  t.model_prior = !o.no_model_prior;
  apply_shard(t, o.shard, !o.save.empty());
  apply_transfer_options(t, o.transfer, o.target != "local");
  // A modeled grid compiles only what can reach the table; a recording needs every prediction.
  t.exact_top = o.record.empty() ? std::max<std::size_t>(o.top, 1) : 0;
  if (!o.cache_dir.empty()) t.cache_folder = o.cache_dir;
  if (!o.quiet)
    t.on_evaluation = [&err](const Evaluation&, std::size_t done) {
      if (done % 25 == 0) err << "  ... " << done << " candidates\n";
    };

  TuningResult result;
  try {
    const bool local = o.target == "local";
    if (local && !cuda::driver_available())
      throw DeviceRequired("measuring needs an NVIDIA GPU: " + cuda::driver_unavailable_reason() +
                           ". Use --target NAME to predict for a GPU that is not here (memtune targets lists them).");
    const ResolvedTarget target = resolve_target(o.target, o.device);
    result = target.measured ? tune(*cmd.kernel, problem, t) : tune_modeled(*cmd.kernel, problem, target.target, t);
  } catch (const DeviceRequired& e) {
    err << "memtune " << cmd.kernel->name() << ": " << e.what() << "\n";
    return kExitNoDevice;
  }

  const std::string note = cmd.kernel->explain(result);
  if (o.json) {
    nlohmann::json j = to_json(result, o.top);
    if (!note.empty()) j["template_note"] = note;
    out << j.dump(2) << "\n";
  } else {
    print_table(out, result, o.top);
    if (!note.empty()) out << "\n" << cmd.kernel->name() << ": " << note << "\n";
    if (!result.baselines.empty()) out << "\ncompared in the same run (same timing protocol and verification):\n";
    for (const auto& b : result.baselines) out << "  " << describe_baseline(result, b) << "\n";
  }
  if (!o.record.empty()) write_file(o.record, recording_json(result));
  if (!o.save.empty() && result.best()) {
    ProfileStore store(o.save);
    store.save(make_profile_entry(result));
    if (!o.json) out << "\nsaved to " << o.save << "\n";
  }
  if (!result.best()) return kExitError;
  return result.aborted.empty() ? kExitOk : kExitError;
}

} // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"memtune: finds the best launch and memory-layout configuration for memory-bound CUDA kernels"};
  app.set_version_flag("--version", std::string("memtune ") + kVersion);
  app.require_subcommand(1);

  CommonOptions o;
  std::vector<TemplateCommand> commands;
  for (const KernelTemplate* k : templates::all()) {
    TemplateCommand cmd;
    cmd.kernel = k;
    cmd.app = app.add_subcommand(k->name(), k->description());
    commands.push_back(cmd);
  }
  const auto probe = add_probe_command(app);
  for (auto& cmd : commands) {
    CLI::App* sub = cmd.app;
    for (const auto& p : cmd.kernel->problem_parameters()) {
      cmd.problem_text[p.name] = "";
      sub->add_option("--" + p.name, cmd.problem_text[p.name],
                      p.description + " (default " + std::to_string(p.default_value) + ")");
    }
    sub->add_option("--strategy", o.strategy, "search strategy: grid, random, bayes")
        ->check(CLI::IsMember(search::strategy_names()))
        ->capture_default_str();
    sub->add_option("--patience", o.patience, "stop after this many candidates without a new best (0: never)");
    sub->add_option("--budget", o.budget, "evaluate at most this many candidates (0: no limit)");
    sub->add_option("--time-budget", o.time_budget, "stop proposing candidates after this many seconds");
    sub->add_option("--seed", o.seed, "seed for data and search randomness")->capture_default_str();
    sub->add_option("--device", o.device, "CUDA device ordinal")->capture_default_str();
    sub->add_option("--target", o.target, "GPU to tune for: local (measured) or a name from `memtune targets` (modeled)")
        ->capture_default_str();
    sub->add_flag("--warm", o.warm, "keep caches warm between samples (default: flush L2 before each)");
    sub->add_flag("--json", o.json, "machine-readable output on stdout");
    sub->add_option("--save", o.save, "add/update this run's best configuration in a JSON profile store");
    sub->add_option("--record", o.record, "write every candidate's time or failure (for replayed search)");
    sub->add_option("--top", o.top, "rows of the ranked table")->capture_default_str();
    sub->add_option("--cache-dir", o.cache_dir, "compile cache folder (default: $MEMTUNE_CACHE_DIR or ~/.cache/memtune)");
    sub->add_flag("--no-cache", o.no_cache, "compile everything, read and write no cache");
    sub->add_flag("--no-model-prior", o.no_model_prior,
                  "bayes on the local GPU: search without the analytical model's prediction as the prior mean");
    sub->add_flag("-q,--quiet", o.quiet, "no progress on stderr");
    add_shard_option(*sub, o.shard);
    add_transfer_options(*sub, o.transfer);
    sub->add_option("--only", o.only,
                    "fix an axis to one value, AXIS=VALUE (repeatable): e.g. measure one configuration under ncu")
        ->delimiter(',');
    std::string known;
    for (const auto& b : cmd.kernel->baselines()) known += (known.empty() ? "" : ", ") + b;
    sub->add_option("--compare", o.compare,
                    "also time a baseline in the same run and show the ratio (" +
                        (known.empty() ? std::string("this template has none") : "known: " + known) + ")");
  }

  CLI::App* targets_cmd = app.add_subcommand("targets", "list the GPUs memtune can tune for (configs/targets)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help/version to the streams we give it.
    return app.exit(e, out, err) == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (targets_cmd->parsed()) return list_targets(out);
    for (const auto& cmd : commands)
      if (cmd.app->parsed()) return run_template(cmd, o, out, err);
    if (probe_command_parsed(*probe)) return run_probe_command(*probe, out, err);
  } catch (const model::TargetFileError& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitError;
  } catch (const model::UnknownTargetError& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitUsage;
  } catch (const TransferError& e) {
    err << "memtune: --from: " << e.what() << "\n";
    return kExitUsage;
  } catch (const NvrtcLibraryError& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitUsage;
  } catch (const ProfileError& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitError;
  } catch (const std::invalid_argument& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitError;
  }
  return kExitUsage;
}

} // namespace memtune::cli
