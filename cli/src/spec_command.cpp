#include "spec_command.hpp"

#include "app.hpp"

#include <memtune/description/description_json.hpp>

namespace memtune::cli {

std::unique_ptr<SpecCommand> add_spec_command(CLI::App& app) {
  auto c = std::make_unique<SpecCommand>();
  c->app = app.add_subcommand("tune", "tune your own kernel from its description file (docs/kernel-description.md)");
  c->app->add_option("--spec", c->spec, "the kernel description (JSON)")->required();
  c->app->add_option("--set", c->sets, "a problem variable, NAME=VALUE (sizes take K, M, G; choices their label); repeatable")
      ->delimiter(',');
  add_tuning_options(*c->app, c->options, {});
  return c;
}

int run_spec_command(const SpecCommand& c, std::ostream& out, std::ostream& err) {
  KernelDescription kernel;
  try {
    kernel = load_description(c.spec);
  } catch (const DescriptionError& e) {
    err << "memtune tune: " << e.what() << "\n";
    return kExitUsage;
  }
  std::map<std::string, std::string> text;
  for (const std::string& set : c.sets) {
    const auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == set.size()) {
      err << "memtune tune: --set takes NAME=VALUE, got '" << set << "'\n";
      return kExitUsage;
    }
    if (!text.emplace(set.substr(0, eq), set.substr(eq + 1)).second) {
      err << "memtune tune: --set " << set.substr(0, eq) << " is given twice\n";
      return kExitUsage;
    }
  }
  const std::optional<Problem> problem = parse_problem(kernel, text, "--set ", err);
  if (!problem) return kExitUsage;
  return run_kernel(kernel, *problem, c.options, out, err);
}

} // namespace memtune::cli
