#include <memtune/isolate/worker_pool.hpp>

#include <memtune/isolate/gpu_visibility.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <poll.h>

namespace memtune::isolation {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string with_output(std::string text, const std::string& output) {
  if (!output.empty()) text += "; its last output: " + output;
  return text;
}

} // namespace

WorkerPool::WorkerPool(std::filesystem::path executable, Hello hello, std::vector<int> devices,
                       double startup_timeout_s)
    : executable_(std::move(executable)), hello_(std::move(hello)), startup_timeout_s_(startup_timeout_s) {
  for (int d : devices) slots_.push_back(Slot{.device = d});
}

WorkerPool::~WorkerPool() {
  for (Slot& s : slots_) {
    if (!s.process || !s.process->alive()) continue;
    try {
      if (!s.busy) s.process->send({{"type", "bye"}});
    } catch (...) {
    }
  }
  // ~WorkerProcess kills and reaps whatever did not leave after bye.
  for (Slot& s : slots_) {
    if (s.process && !s.busy) {
      try {
        (void)s.process->receive(2.0); // until it closes the connection
      } catch (...) {
      }
    }
    s.process.reset();
  }
}

std::string WorkerPool::death_reason(Slot& slot) const {
  slot.process->kill_and_reap();
  return with_output("the worker process " + slot.process->exit_description(), slot.process->output_tail());
}

void WorkerPool::begin_launch(Slot& slot) {
  slot.ready.reset();
  slot.busy = false;
  slot.visible = slot.sight == WorkerSight::own_gpu
                     ? single_gpu_visibility(slot.device, std::getenv("CUDA_VISIBLE_DEVICES"))
                     : std::nullopt;
  slot.process = std::make_unique<WorkerProcess>(executable_, slot.visible);
  Hello hello = hello_;
  hello.device = slot.visible ? 0 : slot.device;
  try {
    slot.process->send(to_json(hello));
  } catch (const ProtocolError&) {
    // It died at once: finish_launch reports how.
  }
}

void WorkerPool::finish_launch(Slot& slot) {
  try {
    receive_ready(slot);
  } catch (const WorkerError& e) {
    // Shown one GPU, it found none or not that one: the entry may name a GPU
    // the host lacks. Seeing every GPU, its error is the driver's answer.
    if (!slot.visible || (e.kind != WorkerError::Kind::no_device && e.kind != WorkerError::Kind::argument)) throw;
    slot.sight = WorkerSight::every_gpu;
    begin_launch(slot);
    receive_ready(slot);
  }
}

void WorkerPool::receive_ready(Slot& slot) {
  std::optional<Frame> reply;
  try {
    reply = slot.process->receive(startup_timeout_s_);
  } catch (const ProtocolError&) {
    throw WorkerError(WorkerError::Kind::setup, "cannot start " + executable_.string() + ": " + death_reason(slot));
  }
  if (!reply) {
    const std::string why = death_reason(slot);
    throw WorkerError(WorkerError::Kind::setup, executable_.string() + " was not ready after " +
                                                    std::to_string(startup_timeout_s_) + " s; " + why);
  }
  const std::string type = message_type(reply->message);
  try {
    if (type == "error") throw error_from_json(reply->message);
    if (type != "ready") throw ProtocolError("the worker answered hello with '" + type + "'");
    slot.ready = ready_from_json(reply->message);
  } catch (const WorkerError&) {
    slot.process->kill_and_reap();
    throw;
  } catch (const std::exception& e) {
    slot.process->kill_and_reap();
    throw WorkerError(WorkerError::Kind::protocol, std::string("a malformed answer to hello: ") + e.what());
  }
}

void WorkerPool::start() {
  // Every worker initialises its GPU at once: a host of 8 GPUs starts in
  // the time of one.
  for (Slot& s : slots_) begin_launch(s);
  for (Slot& s : slots_) finish_launch(s);
}

void WorkerPool::add(const std::vector<int>& devices) {
  const std::size_t first = launch(devices);
  for (std::size_t i = first; i < slots_.size(); ++i) finish_launch(slots_[i]);
}

std::size_t WorkerPool::launch(const std::vector<int>& devices, WorkerSight sight) {
  const std::size_t first = slots_.size();
  for (int d : devices) slots_.push_back(Slot{.device = d, .sight = sight});
  for (std::size_t i = first; i < slots_.size(); ++i) begin_launch(slots_[i]);
  return first;
}

void WorkerPool::await_ready(std::size_t index) {
  Slot& slot = slots_.at(index);
  if (!slot.process) throw std::logic_error("WorkerPool::await_ready on a slot never launched");
  if (!slot.ready) finish_launch(slot);
}

const Ready& WorkerPool::ready(std::size_t slot) const { return *slots_.at(slot).ready; }
int WorkerPool::device(std::size_t slot) const { return slots_.at(slot).device; }

void WorkerPool::set_restart_setup(const SetupRequest& setup, std::vector<char> blob) {
  restart_setup_ = to_json(setup);
  restart_blob_ = std::move(blob);
}

void WorkerPool::ensure_live(Slot& slot) {
  if (slot.process && slot.process->alive() && slot.ready) return;
  if (slot.process) slot.process->kill_and_reap();
  ++restarts_;
  begin_launch(slot);
  finish_launch(slot);
  if (!restart_setup_) return;
  const Frame done = call(static_cast<std::size_t>(&slot - slots_.data()), *restart_setup_, restart_blob_,
                          startup_timeout_s_);
  const SetupDone d = setup_done_from_json(done.message);
  if (d.reference_error || d.context_lost)
    throw WorkerError(WorkerError::Kind::setup, "a replacement worker could not run the reference again: " +
                                                    d.reference_error.value_or("its context was lost"));
}

Frame WorkerPool::call(std::size_t index, const nlohmann::json& request, std::span<const char> blob, double timeout_s) {
  Slot& slot = slots_.at(index);
  if (slot.busy) throw std::logic_error("WorkerPool::call on a busy slot");
  ensure_live(slot);
  std::optional<Frame> reply;
  try {
    slot.process->send(request, blob);
    reply = slot.process->receive(timeout_s);
  } catch (const ProtocolError&) {
    throw WorkerError(WorkerError::Kind::setup, death_reason(slot));
  }
  if (!reply) {
    const std::string why = death_reason(slot);
    throw WorkerError(WorkerError::Kind::setup,
                      "no answer to '" + message_type(request) + "' within " + std::to_string(timeout_s) + " s; " + why);
  }
  if (message_type(reply->message) == "error") throw error_from_json(reply->message);
  return std::move(*reply);
}

std::vector<Frame> WorkerPool::call_each(const std::vector<nlohmann::json>& requests, std::span<const char> blob,
                                         double timeout_s) {
  if (requests.size() != slots_.size()) throw std::logic_error("WorkerPool::call_each: one request per slot");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  std::vector<std::optional<WorkerError>> failed(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& slot = slots_[i];
    if (slot.busy) throw std::logic_error("WorkerPool::call_each on a busy slot");
    try {
      ensure_live(slot);
      slot.process->send(requests[i], blob);
    } catch (const ProtocolError&) {
      failed[i] = WorkerError(WorkerError::Kind::setup, death_reason(slot));
    } catch (const WorkerError& e) {
      failed[i] = e;
    }
  }
  std::vector<Frame> replies(slots_.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    if (failed[i]) continue;
    Slot& slot = slots_[i];
    const double left = std::max(0.0, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
    std::optional<Frame> reply;
    try {
      reply = slot.process->receive(left);
    } catch (const ProtocolError&) {
      failed[i] = WorkerError(WorkerError::Kind::setup, death_reason(slot));
      continue;
    }
    if (!reply) {
      failed[i] = WorkerError(WorkerError::Kind::setup, "no answer to '" + message_type(requests[i]) + "' within " +
                                                            std::to_string(timeout_s) + " s; " + death_reason(slot));
    } else if (message_type(reply->message) == "error") {
      failed[i] = error_from_json(reply->message);
    } else {
      replies[i] = std::move(*reply);
    }
  }
  for (const auto& f : failed)
    if (f) throw *f;
  return replies;
}

void WorkerPool::keep_first(std::size_t size) {
  while (slots_.size() > size) {
    if (slots_.back().process) slots_.back().process->kill_and_reap();
    slots_.pop_back();
  }
}

std::optional<std::size_t> WorkerPool::idle_slot() const {
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (!slots_[i].busy) return i;
  return std::nullopt;
}

std::uint64_t WorkerPool::submit(std::size_t index, const nlohmann::json& request, std::span<const char> blob,
                                 double limit_s) {
  Slot& slot = slots_.at(index);
  if (slot.busy) throw std::logic_error("WorkerPool::submit on a busy slot");
  ensure_live(slot);
  slot.busy = true;
  slot.ticket = next_ticket_++;
  slot.limit_s = limit_s;
  slot.submitted = Clock::now();
  slot.deadline = slot.submitted + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  try {
    slot.process->send(request, blob);
  } catch (const ProtocolError&) {
    // It died since its last reply: wait_any reports it as this request's death.
  }
  return slot.ticket;
}

Completion WorkerPool::finish(Slot& slot, std::size_t index, Completion::Kind kind, Frame reply, std::string reason) {
  Completion c;
  c.ticket = slot.ticket;
  c.slot = index;
  c.device = slot.device;
  c.kind = kind;
  c.reply = std::move(reply);
  c.reason = std::move(reason);
  c.seconds = seconds_since(slot.submitted);
  slot.busy = false;
  return c;
}

void WorkerPool::retire(std::size_t index) {
  Slot& slot = slots_.at(index);
  if (slot.process) slot.process->kill_and_reap();
  slot.ready.reset();
}

std::optional<Completion> WorkerPool::wait_any() {
  while (true) {
    bool any_busy = false;
    Clock::time_point earliest = Clock::time_point::max();
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      if (!s.busy) continue;
      any_busy = true;
      if (auto frame = s.process->next_frame()) {
        if (message_type(frame->message) == "error") // a request it could not serve: it is leaving
          return finish(s, i, Completion::Kind::died, {}, frame->message.value("message", "") + "; " + death_reason(s));
        return finish(s, i, Completion::Kind::reply, std::move(*frame), {});
      }
      if (!s.process->alive()) return finish(s, i, Completion::Kind::died, {}, death_reason(s));
      if (Clock::now() >= s.deadline) {
        s.process->kill_and_reap();
        char limit[32];
        std::snprintf(limit, sizeof limit, "%.3g", s.limit_s);
        return finish(s, i, Completion::Kind::timed_out, {},
                      with_output(std::string("still running after the limit of ") + limit +
                                      " s: killed with its worker process (the GPU is free again)",
                                  s.process->output_tail()));
      }
      earliest = std::min(earliest, s.deadline);
    }
    if (!any_busy) return std::nullopt;

    // Every live worker's output is drained (a device printf must never block
    // a worker); busy workers' replies are read.
    std::vector<pollfd> fds;
    std::vector<std::pair<std::size_t, bool>> owner; // slot, is the socket
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      Slot& s = slots_[i];
      if (!s.process) continue;
      if (s.process->output_fd() >= 0) {
        fds.push_back({s.process->output_fd(), POLLIN, 0});
        owner.emplace_back(i, false);
      }
      if (s.busy && s.process->alive()) {
        fds.push_back({s.process->socket_fd(), POLLIN, 0});
        owner.emplace_back(i, true);
      }
    }
    const double left = std::chrono::duration<double>(earliest - Clock::now()).count();
    const int timeout_ms = static_cast<int>(std::clamp(std::ceil(left * 1000.0), 0.0, 60000.0));
    const int n = ::poll(fds.data(), fds.size(), timeout_ms);
    if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      Slot& s = slots_[owner[k].first];
      if (owner[k].second) s.process->pump_socket();
      else s.process->pump_output();
    }
  }
}

} // namespace memtune::isolation
