#pragma once
// What one fresh process of the start-up benchmark does: exactly what an
// application does to launch a tuned kernel (context, session, description,
// TunedKernel, the first choice, the first launch), timed phase by phase.
#include "startup_phases.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace memtune::bench {

struct ChildOptions {
  std::string kernel = "filter";   // "filter" (built-in) or "dot" (a user's kernel from its description file)
  std::filesystem::path spec;      // the dot kernel's description file
  std::filesystem::path store;     // the profile store
  std::int64_t n = 1 << 24;        // the problem size
  std::int64_t t0_ns = 0;          // monotonic_ns() just before the parent spawned this process
  bool cpu_only = false;           // no GPU: description, lookup and compile-cache read only
};

// Makes the runs that follow warm: tunes within a small budget and saves the
// profile entry (on a GPU), or saves an entry for the default configuration
// and compiles it (cpu_only); either way the CUBIN lands in the compile cache
// ($MEMTUNE_CACHE_DIR). Returns the origin and configuration for the report.
ChildReport prepare_store(const ChildOptions& options);

// One timed start-up; `main_ns` is monotonic_ns() at main's first line.
// Throws memtune::DeviceRequired without a GPU unless cpu_only.
ChildReport run_child(const ChildOptions& options, std::int64_t main_ns);

} // namespace memtune::bench
