#include "app.hpp"

#include "option_checks.hpp"
#include "probe_command.hpp"
#include "profile_command.hpp"
#include "recording.hpp"
#include "shard_option.hpp"
#include "report_command.hpp"
#include "size_parse.hpp"
#include "tune_progress.hpp"
#include "interop_command.hpp"
#include "output_options.hpp"
#include "targets_command.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/profile_store.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/targets.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tuner.hpp>
#include <memtune/tuning_document.hpp>
#include <memtune/version.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
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
  std::string format = "table";
  std::string save;
  std::string record;
  std::string report;
  std::size_t top = 10;
  std::string cache_dir;
  std::string target = "local";
  bool no_cache = false;
  bool no_model_prior = false;
  bool quiet = false;
  std::vector<std::string> compare;
  std::vector<std::string> only; // "axis=value"
  std::string shard;             // "I/N"; empty: from a Slurm job array, else none
};

struct TemplateCommand {
  const KernelTemplate* kernel = nullptr;
  CLI::App* app = nullptr;
  std::map<std::string, std::string> problem_text; // as typed; parsed after CLI11
};

int run_template(const TemplateCommand& cmd, const CommonOptions& o, std::ostream& out, std::ostream& err) {
  std::map<std::string, std::optional<std::string>> typed; // an option not given is nullopt
  for (const auto& [name, text] : cmd.problem_text)
    if (cmd.app->get_option("--" + name)->count() > 0) typed[name] = text;
  const Problem problem = parse_problem(cmd.kernel->problem_parameters(), typed);
  check_output_files(o.record, o.save);

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
  t.only = parse_only(o.only);
  t.model_prior = !o.no_model_prior;
  apply_shard(t, o.shard, !o.save.empty());
  // A modeled grid compiles only what can reach the table; a recording needs every prediction.
  t.exact_top = o.record.empty() ? std::max<std::size_t>(o.top, 1) : 0;
  if (!o.cache_dir.empty()) t.cache_folder = o.cache_dir;
  std::optional<ProgressLine> progress;
  if (!o.quiet) attach_progress(t, progress.emplace(err, stderr_is_terminal(err)));

  TuningResult result;
  try {
    const bool local = o.target == "local";
    if (local && !cuda::driver_available())
      throw DeviceRequired("measuring needs an NVIDIA GPU: " + cuda::driver_unavailable_reason() +
                           ". Use --target NAME to predict for a GPU that is not here (memtune targets lists them).");
    const ResolvedTarget target = resolve_target(o.target, o.device);
    check_fits_memory(*cmd.kernel, problem, target.target);
    result = target.measured ? tune(*cmd.kernel, problem, t) : tune_modeled(*cmd.kernel, problem, target.target, t);
    if (progress) progress->finish(run_summary(result));
  } catch (const DeviceRequired& e) {
    err << "memtune " << cmd.kernel->name() << ": " << e.what() << "\n";
    return kExitNoDevice;
  }

  const output::Format format = chosen_format(o.format, o.json);
  output::print(out, to_document(result, o.top, cmd.kernel->explain(result)), format);
  if (!o.record.empty()) io::write_file_atomically(o.record, recording_json(result).dump(2) + "\n");
  if (!o.report.empty()) write_run_report(result, o.report);
  if (!o.save.empty() && result.best()) {
    ProfileStore store(o.save);
    store.save(make_profile_entry(result));
    if (format == output::Format::table) out << "\nsaved to " << o.save << "\n";
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
  const auto report = add_report_command(app);
  const auto profile = add_profile_command(app);
  const auto interop = add_interop_commands(app);
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
    sub->add_option("--patience", o.patience, "stop after this many candidates without a new best (0: never)")
        ->check(whole_number());
    sub->add_option("--budget", o.budget, "evaluate at most this many candidates (0: no limit)")->check(whole_number());
    sub->add_option("--time-budget", o.time_budget, "stop proposing candidates after this many seconds")
        ->check(seconds());
    sub->add_option("--seed", o.seed, "seed for data and search randomness")->capture_default_str()->check(whole_number());
    sub->add_option("--device", o.device, "CUDA device ordinal")->capture_default_str()->check(whole_number(1023));
    sub->add_option("--target", o.target, "GPU to tune for: local (measured) or a name from `memtune targets` (modeled)")
        ->capture_default_str();
    sub->add_flag("--warm", o.warm, "keep caches warm between samples (default: flush L2 before each)");
    add_format_options(*sub, o.format, &o.json);
    sub->add_option("--save", o.save, "add/update this run's best configuration in a JSON profile store");
    sub->add_option("--record", o.record, "write every candidate's time or failure (for replayed search)");
    sub->add_option("--report", o.report, "write an HTML report of the run (memtune report) at the end");
    sub->add_option("--top", o.top, "rows of the ranked table")->capture_default_str()->check(whole_number());
    sub->add_option("--cache-dir", o.cache_dir, "compile cache folder (default: $MEMTUNE_CACHE_DIR or ~/.cache/memtune)");
    sub->add_flag("--no-cache", o.no_cache, "compile everything, read and write no cache");
    sub->add_flag("--no-model-prior", o.no_model_prior,
                  "bayes on the local GPU: search without the analytical model's prediction as the prior mean");
    sub->add_flag("-q,--quiet", o.quiet, "no progress on stderr");
    add_shard_option(*sub, o.shard);
    sub->add_option("--only", o.only,
                    "fix an axis to one value, AXIS=VALUE (repeatable): e.g. measure one configuration under ncu")
        ->delimiter(',');
    std::string known;
    for (const auto& b : cmd.kernel->baselines()) known += (known.empty() ? "" : ", ") + b;
    sub->add_option("--compare", o.compare,
                    "also time a baseline in the same run and show the ratio (" +
                        (known.empty() ? std::string("this template has none") : "known: " + known) + ")");
  }

  const auto targets_cmd = add_targets_command(app);

  if (const auto unknown = unknown_command(app, argc, argv)) {
    err << "memtune: " << *unknown << "\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints help/version to the streams we give it.
    return app.exit(e, out, err) == 0 ? kExitOk : kExitUsage;
  }

  // A bad file or data in it (InputError) exits 1, a bad argument (ArgumentError) 2.
  return run_reporting_errors("memtune", err, [&] {
    if (targets_command_parsed(*targets_cmd)) return run_targets_command(*targets_cmd, out);
    for (const auto& cmd : commands)
      if (cmd.app->parsed()) return run_template(cmd, o, out, err);
    if (probe_command_parsed(*probe)) return run_probe_command(*probe, out, err);
    if (report_command_parsed(*report)) return run_report_command(*report, out, err);
    if (profile_command_parsed(*profile)) return run_profile_command(*profile, out, err);
    if (interop_command_parsed(*interop)) return run_interop_command(*interop, out, err);
    return kExitUsage;
  });
}

} // namespace memtune::cli
