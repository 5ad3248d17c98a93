#pragma once
// `memtune targets`: the GPUs memtune can model (configs/targets/*.json).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace memtune::cli {

struct TargetsCommand;

std::shared_ptr<TargetsCommand> add_targets_command(CLI::App& app);
bool targets_command_parsed(const TargetsCommand& cmd);
int run_targets_command(const TargetsCommand& cmd, std::ostream& out);

} // namespace memtune::cli
