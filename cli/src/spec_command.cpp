#include "spec_command.hpp"

#include "app.hpp"

#include "option_checks.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/io/errors.hpp>

namespace memtune::cli {

std::unique_ptr<SpecCommand> add_spec_command(CLI::App& app) {
  auto c = std::make_unique<SpecCommand>();
  c->app = app.add_subcommand("tune", "tune your own kernel from its description file (docs/kernel-description.md)");
  // Also positional: `memtune tune k.json` is what a new user types first.
  c->app->add_option("spec,--spec", c->spec, "the kernel description (JSON); --spec may be left out")->required();
  c->app->add_option("--set", c->sets, "a problem variable, NAME=VALUE (sizes take K, M, G; choices their label); repeatable")
      ->delimiter(',');
  c->app->add_option("--compiler", c->compiler,
                     "nvrtc, nvcc or auto (NVRTC, else nvcc for a file with host code or host headers); "
                     "default: the description's \"compiler\", else auto")
      ->check(CLI::IsMember({"auto", "nvrtc", "nvcc"}));
  add_tuning_options(*c->app, c->options, {});
  return c;
}

int run_spec_command(const SpecCommand& c, std::ostream& out, std::ostream& err) {
  // A bad description is a bad file (DescriptionError, exit 1); a bad --set a bad argument (exit 2).
  KernelDescription kernel = load_description(c.spec);
  if (!c.compiler.empty()) kernel.source.compiler = compiler_kind_from_string(c.compiler);
  std::map<std::string, std::optional<std::string>> typed;
  for (const std::string& set : c.sets) {
    const auto eq = set.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == set.size())
      throw ArgumentError("--set " + set, "takes NAME=VALUE");
    if (!typed.emplace(set.substr(0, eq), set.substr(eq + 1)).second)
      throw ArgumentError("--set " + set.substr(0, eq), "is given twice");
  }
  return run_kernel(kernel, parse_problem(kernel, typed, ProblemSyntax::kSet), c.options, out, err);
}

} // namespace memtune::cli
