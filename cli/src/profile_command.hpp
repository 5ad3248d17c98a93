#pragma once
// `memtune profile list|show|diff|merge|prune|pick`: look into and maintain
// profile stores (profile_store.hpp). Writes go through ProfileStore::update,
// the same lock and atomic replace as `--save`. `pick` says what the launcher
// would take for one problem (config_lookup.hpp), `show` prints a sweep's
// per-size rule (size_rule.hpp).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>

namespace memtune::cli {

struct ProfileCommand;

std::shared_ptr<ProfileCommand> add_profile_command(CLI::App& app);
bool profile_command_parsed(const ProfileCommand& cmd);
int run_profile_command(const ProfileCommand& cmd, std::ostream& out, std::ostream& err);

} // namespace memtune::cli
