#include "targets_command.hpp"

#include "app.hpp"
#include "output_options.hpp"

#include <memtune/measure/target_resolver.hpp>

namespace memtune::cli {

struct TargetsCommand {
  CLI::App* app = nullptr;
  std::string format = "table";
};

std::shared_ptr<TargetsCommand> add_targets_command(CLI::App& app) {
  auto cmd = std::make_shared<TargetsCommand>();
  cmd->app = app.add_subcommand("targets", "list the GPUs memtune can tune for (configs/targets)");
  add_format_options(*cmd->app, cmd->format);
  return cmd;
}

bool targets_command_parsed(const TargetsCommand& cmd) { return cmd.app && cmd.app->parsed(); }

int run_targets_command(const TargetsCommand& cmd, std::ostream& out) {
  const model::TargetCatalog catalog = load_targets();
  output::Document d;
  d.title = "targets in " + targets_folder().string() + " (any other than local is modeled):";
  d.data["folder"] = targets_folder().string();
  output::Table& t = d.add_table("targets");
  t.columns = {{.key = "name", .header = "name"},
               {.key = "gpu", .header = "GPU"},
               {.key = "arch", .header = "arch"},
               {.key = "sm_count", .header = "SMs"},
               {.key = "dram_gbps", .header = "DRAM GB/s", .format = "%.0f"},
               {.key = "l2_mib", .header = "L2 MiB", .format = "%.1f"},
               {.key = "banks", .header = "banks"}};
  t.rows.push_back({{"name", "local"}, {"gpu", "the GPU in this machine"}, {"arch", "-"}, {"sm_count", nullptr},
                    {"dram_gbps", nullptr}, {"l2_mib", nullptr}, {"banks", "-"}});
  for (const Target& x : catalog.targets()) {
    std::string banks;
    for (int w : x.bank_widths_bytes) banks += (banks.empty() ? "" : "/") + std::to_string(w) + "B";
    t.rows.push_back({{"name", x.name},
                      {"gpu", x.display_name},
                      {"arch", x.arch()},
                      {"sm_count", x.sm_count},
                      {"dram_gbps", x.dram_bandwidth_gbs},
                      {"l2_mib", static_cast<double>(x.l2_bytes) / (1 << 20)},
                      {"banks", banks}});
  }
  output::print(out, d, chosen_format(cmd.format));
  return kExitOk;
}

} // namespace memtune::cli
