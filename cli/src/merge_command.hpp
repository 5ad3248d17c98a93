#pragma once
// `memtune merge INPUT... -o OUT [--save STORE]`: joins the recordings of a
// run's shards into one recording per GPU model (and saves the merged best
// as a profile entry), or profile stores into one store. The rules are the
// library's (recording_merge.hpp, store_merge.hpp, merge_inputs.hpp).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace memtune::cli {

struct MergeCommand;

std::shared_ptr<MergeCommand> add_merge_command(CLI::App& app);
bool merge_command_parsed(const MergeCommand& cmd);
int run_merge_command(const MergeCommand& cmd, std::ostream& out);

} // namespace memtune::cli
