#include "isolated_executor.hpp"

#include <memtune/isolate/frame.hpp>

#include <stdexcept>
#include <utility>

namespace memtune::isolation {

IsolatedExecutor::IsolatedExecutor(std::unique_ptr<WorkerPool> pool, const std::filesystem::path& executable)
    : pool_(std::move(pool)), target_(pool_->ready(0).target),
      isolation_("worker process (" + executable.filename().string() + ")") {}

std::vector<int> IsolatedExecutor::devices() const {
  std::vector<int> d;
  for (std::size_t slot = 0; slot < pool_->size(); ++slot) d.push_back(pool_->device(slot));
  return d;
}

ExecutorSetup IsolatedExecutor::setup(const std::vector<ReferencePlan>& references, std::size_t ceiling_bytes,
                                      std::size_t same_size_bytes, const std::optional<search::Config>& expected_for) {
  SetupRequest request;
  for (const ReferencePlan& r : references)
    request.references.push_back(LaunchRequest{r.config, r.launch, r.compiled.lowered_name, r.compiled.cubin});
  std::vector<char> blob = setup_blob(request);
  request.expected_for = expected_for;
  // On several GPUs the others need not wait for the first one's copies.
  const bool copies_apart = pool_->size() > 1 && (ceiling_bytes > 0 || same_size_bytes > 0);
  std::vector<nlohmann::json> requests;
  for (std::size_t slot = 0; slot < pool_->size(); ++slot) {
    request.time_reference = slot == 0;
    request.ceiling_bytes = slot == 0 && !copies_apart ? ceiling_bytes : 0; // one ceiling per run
    request.same_size_bytes = slot == 0 && !copies_apart ? same_size_bytes : 0;
    requests.push_back(to_json(request));
  }
  std::vector<Frame> replies;
  try {
    replies = pool_->call_each(requests, blob, kSetupTimeout); // every GPU at once
  } catch (const WorkerError& e) {
    if (e.kind == WorkerError::Kind::argument) throw std::invalid_argument(e.what()); // as in this process
    throw ContextLost{std::string("the worker could not set the run up: ") + e.what()};
  }
  ExecutorSetup s;
  for (std::size_t slot = 0; slot < replies.size(); ++slot) {
    const SetupDone done = setup_done_from_json(replies[slot].message);
    if (slot == 0) {
      s.reference_error = done.reference_error;
      s.reference_time_s = done.reference_time_s;
      s.copies = copies_of(done);
      s.expected_seconds = done.expected_seconds;
    }
    s.workers.push_back(worker_times(pool_->device(slot), pool_->ready(slot).setup_seconds, done));
    if (done.reference_error) {
      s.reference_error = done.reference_error;
      return s;
    }
  }
  // A replacement worker gets the reference again (and no ceiling).
  request.time_reference = false;
  request.ceiling_bytes = 0;
  request.same_size_bytes = 0;
  pool_->set_restart_setup(request, std::move(blob));
  if (copies_apart) {
    SetupRequest copies;
    copies.ceiling_bytes = ceiling_bytes;
    copies.same_size_bytes = same_size_bytes;
    try {
      copies_ticket_ = pool_->submit(0, to_json(copies), {}, kSetupTimeout);
    } catch (const WorkerError& e) {
      throw ContextLost{std::string("the worker could not set the run up: ") + e.what()};
    }
    s.copies.reset();
  }
  return s;
}

void IsolatedExecutor::send(std::size_t slot, const nlohmann::json& request, std::span<const char> cubin,
                            double limit_s, std::uint64_t tag) {
  try {
    tags_[pool_->submit(slot, request, cubin, limit_s)] = tag;
  } catch (const WorkerError& e) {
    throw ContextLost{"no worker process could be started again on GPU " + std::to_string(pool_->device(slot)) + ": " +
                      e.what()};
  }
}

void IsolatedExecutor::send_waiting() {
  while (!waiting_.empty()) {
    const std::optional<std::size_t> slot = pool_->idle_slot();
    if (!slot) return;
    const Waiting w = std::move(waiting_.front());
    waiting_.pop_front();
    if (copies_error_) throw ContextLost{*copies_error_}; // nothing starts after it
    send(*slot, w.request, w.cubin, w.limit_s, w.tag);
  }
}

void IsolatedExecutor::submit(const LaunchRequest& candidate, double limit_s, std::uint64_t tag) {
  if (copies_error_) throw ContextLost{*copies_error_};
  if (tags_.size() + waiting_.size() >= pool_->size())
    throw std::logic_error("IsolatedExecutor::submit with every worker busy");
  send_waiting(); // those started before this one go first
  nlohmann::json request = run_json(next_id_++, candidate);
  if (const std::optional<std::size_t> slot = pool_->idle_slot(); slot && waiting_.empty()) {
    send(*slot, request, candidate.cubin, limit_s, tag);
    return;
  }
  waiting_.push_back({std::move(request), std::vector<char>(candidate.cubin.begin(), candidate.cubin.end()), limit_s, tag});
}

std::optional<CandidateDone> IsolatedExecutor::collect() {
  while (true) {
    send_waiting(); // to the GPU the last completion freed
    std::optional<Completion> done = pool_->wait_any();
    if (!done) return std::nullopt;
    if (done->ticket == copies_ticket_) {
      copies_ended(*done);
      continue;
    }
    const auto tag = tags_.find(done->ticket);
    CandidateDone out{tag->second, outcome(*done)};
    tags_.erase(tag);
    return out;
  }
}

void IsolatedExecutor::copies_ended(const Completion& done) {
  copies_ticket_.reset();
  const std::string why = "the copy ceiling could not be measured on GPU " + std::to_string(done.device) + ": ";
  if (done.kind != Completion::Kind::reply) {
    copies_error_ = why + done.reason; // the worker died or hung: the pool replaces it if asked again
    return;
  }
  try {
    const SetupDone d = setup_done_from_json(done.reply.message);
    if (d.context_lost) throw std::runtime_error("its CUDA context was lost");
    copies_ = copies_of(d);
  } catch (const std::exception& e) {
    pool_->retire(done.slot);
    copies_error_ = why + e.what();
  }
}

std::optional<CopyMeasurements> IsolatedExecutor::await_copies() {
  while (copies_ticket_) {
    std::optional<Completion> done = pool_->wait_any();
    // The search collected every candidate it started before it ended.
    if (!done || done->ticket != copies_ticket_)
      throw std::logic_error("IsolatedExecutor::await_copies with a candidate in flight");
    copies_ended(*done);
  }
  if (copies_error_) throw ContextLost{*copies_error_};
  return take_copies();
}

BaselineResult IsolatedExecutor::baseline(const std::string& name, std::uint64_t bytes_moved) {
  try {
    return baseline_from_json(pool_->call(pool_->idle_slot().value_or(0),
                                          {{"type", "baseline"}, {"name", name}, {"bytes_moved", bytes_moved}}, {},
                                          kSetupTimeout)
                                  .message);
  } catch (const WorkerError& e) {
    BaselineResult b;
    b.name = name;
    b.message = std::string("its worker process failed: ") + e.what();
    return b;
  }
}

CandidateRun IsolatedExecutor::outcome(const Completion& done) {
  CandidateRun r;
  r.device = done.device;
  switch (done.kind) {
  case Completion::Kind::reply:
    try {
      r.outcome = outcome_from_json(done.reply.message);
    } catch (const std::exception& e) {
      r.outcome.status = Status::launch_failed;
      r.outcome.reason = std::string("the worker's answer could not be read: ") + e.what();
      pool_->retire(done.slot);
      r.worker_replaced = true;
      return r;
    }
    if (r.outcome.context_lost || r.outcome.gpu_busy) {
      pool_->retire(done.slot);
      r.worker_replaced = true;
      r.outcome.reason += "; a fresh worker process runs the next candidate";
    }
    return r;
  case Completion::Kind::died:
    r.outcome.status = Status::launch_failed;
    r.outcome.reason = "the candidate crashed its worker process: " + done.reason +
                       "; a fresh worker process runs the next candidate";
    r.worker_replaced = true;
    return r;
  case Completion::Kind::timed_out:
    r.outcome.status = Status::timeout;
    r.outcome.reason = done.reason;
    r.worker_replaced = true;
    return r;
  }
  return r;
}

} // namespace memtune::isolation
