#pragma once
// Internal to the tuning loop: the candidate executor of worker processes,
// one per GPU (isolate/include/memtune/isolate/worker_pool.hpp), as
// start_executor makes it once every worker is ready.
//
// On several GPUs the copies (the copy ceiling and the same-size copy) are
// measured on the first GPU while the others already run candidates: set-up
// awaits only what every GPU needs (the reference). The first GPU takes
// candidates once its copies are done; a candidate started while every other
// GPU is busy waits here for the first GPU that ends its work. On one GPU the
// copies are part of the set-up, so they never overlap a timed candidate.
#include "candidate_executor.hpp"

#include <memtune/isolate/worker_pool.hpp>

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune::isolation {

class IsolatedExecutor : public CandidateExecutor {
public:
  // `pool`: every worker ready; `executable` names the worker in the header.
  IsolatedExecutor(std::unique_ptr<WorkerPool> pool, const std::filesystem::path& executable);

  const Target& target() const override { return target_; }
  const std::string& isolation() const override { return isolation_; }
  std::vector<int> devices() const override;

  ExecutorSetup setup(const std::vector<ReferencePlan>& references, std::size_t ceiling_bytes,
                      std::size_t same_size_bytes, const std::optional<search::Config>& expected_for) override;
  void submit(const LaunchRequest& candidate, double limit_s, std::uint64_t tag) override;
  std::optional<CandidateDone> collect() override;
  std::optional<CopyMeasurements> take_copies() override { return std::exchange(copies_, std::nullopt); }
  std::optional<CopyMeasurements> await_copies() override;
  BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved) override;
  std::size_t restarts() const override { return pool_->restarts(); }

private:
  // A candidate started while no GPU was idle (the first measured the copies).
  struct Waiting {
    nlohmann::json request;
    std::vector<char> cubin; // a copy: the compile result it came from is gone by the time it is sent
    double limit_s = 0;
    std::uint64_t tag = 0;
  };

  void send(std::size_t slot, const nlohmann::json& request, std::span<const char> cubin, double limit_s,
            std::uint64_t tag);
  // Sends waiting candidates to idle GPUs, oldest first. Throws ContextLost as submit().
  void send_waiting();
  void copies_ended(const Completion& done);
  // What a completion means for its candidate; a worker that cannot be
  // trusted any more is retired (its slot gets a fresh one).
  CandidateRun outcome(const Completion& done);

  static constexpr double kSetupTimeout = 600.0; // [seconds] host references of large problems take a while

  std::unique_ptr<WorkerPool> pool_;
  Target target_;
  std::string isolation_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::uint64_t> tags_; // the pool's ticket -> the caller's tag, candidates on a GPU
  std::deque<Waiting> waiting_;
  std::optional<std::uint64_t> copies_ticket_; // the copies, while the first GPU measures them
  std::optional<CopyMeasurements> copies_;     // measured, not taken yet
  std::optional<std::string> copies_error_;    // why they could not be measured: the run stops
};

} // namespace memtune::isolation
