#pragma once
// Internal to tune(): the search loop's evaluator for a measured run. A
// compiled candidate is submitted to the executor's next idle GPU (one worker
// each) with its watchdog limit; when it completes, what the GPU found is
// merged into the Evaluation the compile began, attributed to its GPU. The
// copies the first GPU measures while the others run candidates (several
// GPUs) are handed to `on_copies` as soon as they end; candidates that ended
// before have no fraction of the ceiling until tune() adds it.
#include "candidate_executor.hpp"
#include <memtune/tune/search_loop.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>

namespace memtune {

class GpuEvaluator : public CandidateEvaluator {
public:
  // Borrows everything; `yardsticks.best_s` is kept up to date as
  // candidates end (the watchdog's limit for the next ones).
  GpuEvaluator(const KernelDescription& kernel, const Target& target, const TuneOptions& options,
               const TuningResult& result, WatchdogYardsticks& yardsticks, isolation::CandidateExecutor& gpu,
               std::function<void(const isolation::CopyMeasurements&)> on_copies);

  [[nodiscard]] std::size_t capacity() const override { return gpu_.capacity(); }
  std::optional<Evaluation> start(Pending& p) override;
  Evaluation finish() override;
  // When the first candidate was sent to a GPU; nullopt while none was.
  [[nodiscard]] std::optional<std::chrono::steady_clock::time_point> first_sent() const { return first_sent_; }

private:
  const KernelDescription& kernel_;
  const Target& target_;
  const TuneOptions& options_;
  const TuningResult& result_;
  WatchdogYardsticks& yardsticks_;
  isolation::CandidateExecutor& gpu_;
  std::function<void(const isolation::CopyMeasurements&)> on_copies_;
  std::map<std::uint64_t, Evaluation> in_flight_; // by tag: what the compile filled in
  std::uint64_t next_tag_ = 1;
  std::optional<std::chrono::steady_clock::time_point> first_sent_;
};

} // namespace memtune
