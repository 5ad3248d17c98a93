#pragma once
// Internal to the tuning loop: where a measured run's candidates are launched.
// In supervised worker processes, one per GPU (the default), or in this
// process when isolation is off or impossible; the loop does not care which.
// Asynchronous: up to capacity() candidates are in flight, each submitted
// with a tag and collected, tag and all, as it completes (in any order).
#include <memtune/measure/reference_run.hpp>
#include <memtune/tune/search_loop.hpp>
#include <memtune/isolate/candidate_launcher.hpp>
#include <memtune/isolate/protocol.hpp>

#include <memtune/output/setup_times.hpp>
#include <memtune/tune/execution_options.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune::isolation {

// The copies measured on the first GPU, once per run (the GPUs are of one model).
struct CopyMeasurements {
  std::optional<CopyCeiling> ceiling;
  std::optional<CopyCeiling> same_size_copy; // a problem smaller than the ceiling's copy
  double ceiling_s = 0;                      // [seconds] measuring the ceiling
  double same_size_copy_s = 0;               // [seconds] measuring the same-size copy
};

struct ExecutorSetup {
  std::optional<std::string> reference_error; // no reference: nothing can be verified
  std::optional<double> reference_time_s;     // [seconds] one reference launch
  // nullopt: still measured on the first GPU while the others start
  // candidates (CandidateExecutor::take_copies).
  std::optional<CopyMeasurements> copies;
  double expected_seconds = 0;                // [seconds] a callback's expected values for one configuration
  std::vector<WorkerSetupTimes> workers;      // each GPU's part of the set-up, in devices() order
};

struct CandidateRun {
  LaunchOutcome outcome;
  int device = 0;              // the GPU ordinal it ran on
  bool worker_replaced = false; // the worker died, was killed or retired after it
};

// A submitted candidate that completed, with the tag it was submitted with.
struct CandidateDone {
  std::uint64_t tag = 0;
  CandidateRun run;
};

class CandidateExecutor {
public:
  virtual ~CandidateExecutor() = default;
  // The GPU, as its driver describes it (completed from the catalogue); on
  // several GPUs, the first's (they are of one model).
  [[nodiscard]] virtual const Target& target() const = 0;
  // The GPU ordinals candidates run on, one worker each.
  [[nodiscard]] virtual std::vector<int> devices() const = 0;
  // Candidates in flight at once: one per worker; 1 in this process.
  [[nodiscard]] std::size_t capacity() const { return devices().size(); }
  // For the run's header: "worker process (memtune-worker)", or "off: why".
  [[nodiscard]] virtual const std::string& isolation() const = 0;
  // On every GPU: the reference (expected values) and a callback's expected
  // values for `expected_for`. On the first: the reference's time, the copy
  // ceiling when ceiling_bytes > 0 (with a same-size copy when
  // same_size_bytes > 0), one ceiling per run since the GPUs are of one model.
  // On one GPU the copies are measured before it returns; on several, the
  // first GPU measures them while the others start candidates, and takes
  // candidates after them (ExecutorSetup::copies is then nullopt).
  virtual ExecutorSetup setup(const std::vector<ReferencePlan>& references, std::size_t ceiling_bytes,
                              std::size_t same_size_bytes, const std::optional<search::Config>& expected_for) = 0;
  // The copies setup() left to the first GPU, once they are measured and
  // collect() has seen them end; each is handed over once.
  virtual std::optional<CopyMeasurements> take_copies() { return std::nullopt; }
  // The same, waiting for them (a search may end before they do); nullopt
  // when none are left to hand over. Precondition: no candidate in flight.
  // Throws ContextLost when they could not be measured (then, too, submit()
  // throws it: the run stops).
  virtual std::optional<CopyMeasurements> await_copies() { return std::nullopt; }
  // Starts one candidate on an idle GPU, at most `limit_s` long where it can
  // be stopped (one started while the first GPU measures the copies and the
  // others are busy waits for the first GPU that ends). Precondition: fewer
  // than capacity() are in flight. Throws ContextLost when no replacement
  // worker starts, or the copies could not be measured.
  virtual void submit(const LaunchRequest& candidate, double limit_s, std::uint64_t tag) = 0;
  // Waits for a submitted candidate to complete; nullopt when none is in
  // flight. Throws ContextLost when the GPU cannot be used any more (in this
  // process after a sticky error), the candidate then being consumed.
  virtual std::optional<CandidateDone> collect() = 0;
  virtual BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved) = 0;
  [[nodiscard]] virtual std::size_t restarts() const = 0;
};

// The copies and each GPU's part of the set-up in a worker's setup_done.
CopyMeasurements copies_of(const SetupDone& done);
WorkerSetupTimes worker_times(int device, double start_s, const SetupDone& done);

// Merges what the GPU side found into a candidate's Evaluation (filled by the
// tuning process from its compile): the loaded function's resources, the
// occupancy they give, status and reason, the time, GB/s and its fractions.
void merge_outcome(Evaluation& e, const LaunchOutcome& outcome, const Target& target, std::uint64_t bytes_moved,
                   double ceiling_gbps);
// e.occupancy from its block, resources and shared memory (cuda_occupancy.h
// with the target's limits), for a candidate that compiled.
void recompute_occupancy(Evaluation& e, const Target& target);

// How a worker rebuilds `kernel` (it refuses a different fingerprint): a
// description file from its text; a description made in C++ as data
// (to_data) when every part of it is data; else by name from the worker's
// own descriptions (memtune-worker: the catalogue's templates).
DescriptionSource worker_source(const KernelDescription& kernel);

// Starts the workers (or the in-process launcher) for a measured run: one
// worker per GPU of options.devices (or options.device), `seed` for the data,
// all at once when the GPUs are known before any worker is ready (a list, or
// `all` counted by this process's driver: IsolationOptions::count_gpus). Throws
// DeviceRequired when there is no GPU, std::invalid_argument for an ordinal
// the host does not have, MixedDevices when the GPUs are of several models.
std::unique_ptr<CandidateExecutor> start_executor(const KernelDescription& kernel, const Problem& problem,
                                                  const ExecutionOptions& options, std::uint64_t seed,
                                                  const CompileCache* cache);

} // namespace memtune::isolation
