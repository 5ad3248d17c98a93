#pragma once
// `memtune probe`: runs the probes on the local GPU and prints, writes or
// saves what they measured (docs/probes.md).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace memtune::cli {

struct ProbeCommand; // the subcommand and its options (defined in probe_command.cpp)

// Adds the subcommand to `app`; the returned object holds the parsed options
// and must outlive app.parse().
std::shared_ptr<ProbeCommand> add_probe_command(CLI::App& app);
// True when `memtune probe` was the command parsed.
bool probe_command_parsed(const ProbeCommand& cmd);
// Runs it; returns an exit code (kExitNoDevice without a GPU).
int run_probe_command(const ProbeCommand& cmd, std::ostream& out, std::ostream& err);

} // namespace memtune::cli
