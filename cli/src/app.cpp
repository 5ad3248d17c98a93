#include "app.hpp"

#include "interop_command.hpp"
#include "merge_command.hpp"
#include "kernel_command.hpp"
#include "option_checks.hpp"
#include "probe_command.hpp"
#include "profile_command.hpp"
#include "report_command.hpp"
#include "spec_command.hpp"
#include "sweep_command.hpp"
#include "targets_command.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/io/version.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

namespace memtune::cli {
namespace {

struct TemplateCommand {
  const KernelDescription* kernel = nullptr;
  CLI::App* app = nullptr;
  std::map<std::string, std::string> problem_text; // as typed; parsed after CLI11
};

int run_template(const TemplateCommand& cmd, const CommonOptions& o, std::ostream& out, std::ostream& err) {
  std::map<std::string, std::optional<std::string>> typed; // an option not given is nullopt
  for (const auto& [name, text] : cmd.problem_text)
    if (cmd.app->get_option("--" + name)->count() > 0) typed[name] = text;
  return run_kernel(*cmd.kernel, parse_problem(*cmd.kernel, typed), o, out, err);
}

} // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"memtune: finds the best launch and memory-layout configuration for memory-bound CUDA kernels"};
  app.set_version_flag("--version", std::string("memtune ") + kVersion);
  app.require_subcommand(1);

  CommonOptions o;
  std::vector<TemplateCommand> commands;
  for (const KernelDescription* k : templates::descriptions()) {
    TemplateCommand cmd;
    cmd.kernel = k;
    cmd.app = app.add_subcommand(k->name, k->summary);
    commands.push_back(cmd);
  }
  const auto probe = add_probe_command(app);
  const auto spec = add_spec_command(app);
  const auto sweep = add_sweep_command(app);
  const auto report = add_report_command(app);
  const auto profile = add_profile_command(app);
  const auto interop = add_interop_commands(app);
  const auto merge = add_merge_command(app);
  for (auto& cmd : commands) {
    CLI::App* sub = cmd.app;
    for (const auto& p : cmd.kernel->problem) {
      cmd.problem_text[p.name] = "";
      const std::string fallback = p.labels.empty() ? std::to_string(p.default_value)
                                                    : p.labels.at(static_cast<std::size_t>(p.default_value));
      std::string help = p.description.empty() ? p.name : p.description;
      if (!p.labels.empty()) {
        std::string labels;
        for (const auto& l : p.labels) labels += (labels.empty() ? "" : ", ") + l;
        help += " (" + labels + ")";
      }
      sub->add_option("--" + p.name, cmd.problem_text[p.name], help + " (default " + fallback + ")");
    }
    add_tuning_options(*sub, o, cmd.kernel->baseline_names());
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
    if (spec->app->parsed()) return run_spec_command(*spec, out, err);
    if (sweep->app->parsed()) return run_sweep_command(*sweep, out, err);
    if (probe_command_parsed(*probe)) return run_probe_command(*probe, out, err);
    if (report_command_parsed(*report)) return run_report_command(*report, out, err);
    if (profile_command_parsed(*profile)) return run_profile_command(*profile, out, err);
    if (interop_command_parsed(*interop)) return run_interop_command(*interop, out, err);
    if (merge_command_parsed(*merge)) return run_merge_command(*merge, out);
    return kExitUsage;
  });
}

} // namespace memtune::cli
