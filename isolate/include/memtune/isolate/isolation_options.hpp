#pragma once
// Surviving bad candidates: where candidates are launched and how long one may
// run. By default every candidate of a measured run is launched in a worker
// process (memtune-worker) that the tuning process supervises: a sticky CUDA
// error (illegal address, misaligned access, trap, assert) or a crash costs
// that candidate (launch_failed, with the CUDA error and what it means) and a
// fresh worker; a candidate still running past its time limit is killed with
// its worker (timeout), and the GPU is free for the next one. Compilation
// stays in the tuning process (its compile cache stays warm across workers).
//
// A description a worker cannot rebuild (one made in C++ by the tuning
// program with a callback that lives only there: KernelDescription::
// not_data_because) runs in the tuning process, and TuningResult::isolation
// says so and why; so does enabled = false.
#include <memtune/measure/measure.hpp>

#include <filesystem>
#include <functional>
#include <optional>

namespace memtune {

struct IsolationOptions {
  bool enabled = true;
  // [seconds] one candidate's limit in its worker, from its first launch to
  // its last sample; 0: automatic (candidate_time_limit). Also raises the
  // per-launch limit of MeasureOptions::timeout_seconds to this.
  double candidate_timeout_s = 0.0;
  // The worker program; default: $MEMTUNE_WORKER, else memtune-worker next to
  // this program, else <prefix>/libexec/memtune/memtune-worker.
  std::optional<std::filesystem::path> worker;
  // How many GPUs this host has, asked for `--devices all` while the first
  // worker starts, so that the other workers start with it rather than after
  // its ready. Unset: this process's driver (cuda::device_count, which
  // creates no context). nullopt, or no driver here: the first worker's ready
  // tells, and the others start after it.
  std::function<std::optional<int>()> count_gpus;
};

// The automatic limit's constants.
struct WatchdogLimits {
  double multiple = 20.0; // a candidate may be this many times slower than the yardstick
  double floor_s = 3.0;   // [seconds] never less (process, module load, verification, L2 flushes)
  double cap_s = 120.0;   // [seconds] never more
};

// What the automatic limit is measured against, whichever are known.
struct WatchdogYardsticks {
  std::optional<double> best_s;      // [seconds] the fastest candidate so far (median of one launch)
  std::optional<double> reference_s; // [seconds] one launch of the reference configuration or kernel
  std::optional<double> copy_s;      // [seconds] the kernel's bytes at the copy ceiling (the fastest it could be)
  double host_work_s = 0.0;          // [seconds] host work a candidate may trigger (expected values of a callback)
};

// [seconds] how long one candidate may run: floor + host_work +
// min(multiple x yardstick x launches, cap - floor), where the yardstick is
// the smallest known of best, reference and copy, and launches is what one
// measurement makes at most (warm-up, two verified launches, max_samples).
// With no yardstick at all: cap + host_work.
//   e.g. best 49 us, 213 launches: 3 + 20 x 49e-6 x 213 = 3.2 s.
[[nodiscard]] double candidate_time_limit(const WatchdogYardsticks& yardsticks, const MeasureOptions& measure,
                                          const WatchdogLimits& limits = {});

} // namespace memtune
