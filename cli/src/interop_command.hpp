#pragma once
// `memtune import FILE -o recording.json`: a Kernel Tuner cache or T4 results
// file as a memtune recording (to replay, search and report it);
// `memtune export RECORDING --format kernel_tuner -o cache.json`: a recording
// as a Kernel Tuner cache (kernel_tuner_format.hpp).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace memtune::cli {

struct InteropCommands;

std::shared_ptr<InteropCommands> add_interop_commands(CLI::App& app);
bool interop_command_parsed(const InteropCommands& cmd);
int run_interop_command(const InteropCommands& cmd, std::ostream& out, std::ostream& err);

} // namespace memtune::cli
