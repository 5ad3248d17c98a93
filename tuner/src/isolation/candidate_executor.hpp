#pragma once
// Internal to the tuning loop: where a measured run's candidates are launched.
// In a supervised worker process (the default), or in this process when
// isolation is off or impossible; the loop does not care which.
#include "../reference_run.hpp"
#include "../search_loop.hpp"
#include "candidate_launcher.hpp"

#include <memtune/tuner.hpp>

#include <memory>
#include <optional>
#include <string>

namespace memtune::isolation {

struct ExecutorSetup {
  std::optional<std::string> reference_error; // no reference: nothing can be verified
  std::optional<double> reference_time_s;     // [seconds] one reference launch
  std::optional<CopyCeiling> ceiling;
  std::optional<CopyCeiling> same_size_copy;  // a problem smaller than the ceiling's copy
  double expected_seconds = 0;                // [seconds] a callback's expected values for one configuration
};

struct CandidateRun {
  LaunchOutcome outcome;
  int device = 0;              // the GPU ordinal it ran on
  bool worker_replaced = false; // the worker died, was killed or retired after it
};

class CandidateExecutor {
public:
  virtual ~CandidateExecutor() = default;
  // The GPU, as its driver describes it (completed from the catalogue).
  [[nodiscard]] virtual const Target& target() const = 0;
  // For the run's header: "worker process (memtune-worker)", or "off: why".
  [[nodiscard]] virtual const std::string& isolation() const = 0;
  // The reference (expected values), the copy ceiling when ceiling_bytes > 0
  // (with a same-size copy when same_size_bytes > 0), and a callback's
  // expected values for `expected_for`.
  virtual ExecutorSetup setup(const std::optional<ReferencePlan>& reference, std::size_t ceiling_bytes,
                              std::size_t same_size_bytes, const std::optional<search::Config>& expected_for) = 0;
  // One candidate, at most `limit_s` long where it can be stopped. Throws
  // ContextLost when the GPU cannot be used any more (in this process after a
  // sticky error, or no replacement worker starts).
  virtual CandidateRun run(const LaunchRequest& candidate, double limit_s) = 0;
  virtual BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved) = 0;
  [[nodiscard]] virtual std::size_t restarts() const = 0;
};

// Merges what the GPU side found into a candidate's Evaluation (filled by the
// tuning process from its compile): the loaded function's resources, the
// occupancy they give, status and reason, the time, GB/s and its fractions.
void merge_outcome(Evaluation& e, const LaunchOutcome& outcome, const Target& target, std::uint64_t bytes_moved,
                   double ceiling_gbps);
// e.occupancy from its block, resources and shared memory (cuda_occupancy.h
// with the target's limits), for a candidate that compiled.
void recompute_occupancy(Evaluation& e, const Target& target);

// Starts the workers (or the in-process launcher) for a measured run. Throws
// DeviceRequired when there is no GPU.
std::unique_ptr<CandidateExecutor> start_executor(const KernelDescription& kernel, const Problem& problem,
                                                  const TuneOptions& options, const CompileCache* cache);

} // namespace memtune::isolation
