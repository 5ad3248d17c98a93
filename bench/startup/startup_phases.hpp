#pragma once
// One fresh process's start-up, phase by phase, as the child of the start-up
// benchmark measures it and the parent aggregates it.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace memtune::bench {

// [milliseconds] in the order a process goes through them. memtune's part is
// everything but the driver and context, and the application's own buffers.
struct Phase {
  const char* key;
  const char* label;
  bool memtune; // counts against the start-up budget
};
inline const std::vector<Phase>& startup_phases() {
  static const std::vector<Phase> phases{
      {"exec_to_main", "exec -> main (loader, static init)", true},
      {"driver_context", "driver + context (cuInit, primary context)", false},
      {"session", "session (device attributes)", true},
      {"description", "description (catalogue or JSON file)", true},
      {"stand_in_target", "(cpu-only) catalogue target for the driver's", false},
      {"launcher", "launcher (signature check, constants)", true},
      {"lookup", "profile lookup (read, parse, match)", true},
      {"load", "module load (compile cache hit)", true},
      {"prepare_rest", "per-problem setup (scratch, symbols)", true},
      {"app_buffers", "the application's buffers and stream", false},
      {"first_launch", "first launch + synchronize", true},
  };
  return phases;
}

// A monotonic clock shared by parent and child (CLOCK_MONOTONIC is system-wide on Linux).
inline std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// What a child reports: phase key -> milliseconds, the configuration's origin, and more.
struct ChildReport {
  nlohmann::json phases = nlohmann::json::object();
  std::string origin;
  std::string config;
  std::string note; // e.g. "cpu-only: no module load, no launch"
  bool nvrtc_loaded = false; // NVRTC mapped into the process by the time it launched
};

} // namespace memtune::bench
