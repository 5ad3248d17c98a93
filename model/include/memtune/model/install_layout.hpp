#pragma once
// Where memtune's installed files lie: the target catalogue
// (<prefix>/share/memtune/targets) and the worker program
// (<prefix>/libexec/memtune/memtune-worker). They are found from where the
// running program or the installed package is, never from a path written in at
// build time, so an install prefix can be moved or copied whole. A build tree
// has the same layout (<build>/share/memtune, the worker next to memtune).
#include <filesystem>
#include <optional>
#include <vector>

namespace memtune {

// The folder of the running program (/proc/self/exe); nullopt where it cannot be read.
std::optional<std::filesystem::path> running_program_dir();

// Records the prefix of an installed memtune package: an application built
// with find_package(memtune) does it at start-up (the package's
// package_prefix.cpp), so the library finds the catalogue and the worker of
// the prefix it was built against, wherever the application itself lies.
void register_package_prefix(const std::filesystem::path& prefix);

// The prefixes to look in, first found wins: the running program's folder's
// parent (an installed memtune: <prefix>/bin/memtune), the folder above that
// (a build tree's <build>/<dir>/<program>), then the registered package prefix.
std::vector<std::filesystem::path> install_prefix_candidates();

// <prefix>/share/memtune/<relative> for each candidate prefix.
std::vector<std::filesystem::path> data_candidates(const std::filesystem::path& relative);

// The worker program's places: next to the running program (a build tree),
// then <prefix>/libexec/memtune/memtune-worker for each candidate prefix.
std::vector<std::filesystem::path> worker_candidates();

} // namespace memtune
