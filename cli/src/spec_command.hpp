#pragma once
// `memtune tune --spec kernel.json [--set NAME=VALUE ...]`: tunes a user's
// kernel from its description file (docs/kernel-description.md) with every
// option the built-in templates' commands have.
#include "kernel_command.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace memtune::cli {

struct SpecCommand {
  CLI::App* app = nullptr;
  std::string spec;              // the description file
  std::vector<std::string> sets; // NAME=VALUE, problem variables
  std::string compiler;          // --compiler nvrtc|nvcc|auto: overrides the description's "compiler"
  CommonOptions options;
};

std::unique_ptr<SpecCommand> add_spec_command(CLI::App& app);
// Returns the exit code: 2 for a description that cannot be used or a bad --set.
int run_spec_command(const SpecCommand& command, std::ostream& out, std::ostream& err);

} // namespace memtune::cli
