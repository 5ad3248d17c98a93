#include "app.hpp"

#include "kernel_command.hpp"
#include "probe_command.hpp"
#include "spec_command.hpp"

#include <memtune/profile_store.hpp>
#include <memtune/targets.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/version.hpp>

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
  const std::optional<Problem> problem = parse_problem(*cmd.kernel, cmd.problem_text, "--", err);
  if (!problem) return kExitUsage;
  return run_kernel(*cmd.kernel, *problem, o, out, err);
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
    if (spec->app->parsed()) return run_spec_command(*spec, out, err);
    if (probe_command_parsed(*probe)) return run_probe_command(*probe, out, err);
  } catch (const model::TargetFileError& e) {
    err << "memtune: " << e.what() << "\n";
    return kExitError;
  } catch (const model::UnknownTargetError& e) {
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
