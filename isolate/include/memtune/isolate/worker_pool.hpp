#pragma once
// Internal to isolation: the supervisor of the worker processes, one per GPU
// ordinal (`--devices` gives several). Asynchronous: submit
// a request to an idle worker, wait for whichever completes first. A
// completion is the worker's reply, or its death (crash, exit), or the
// watchdog: past its time limit the worker is killed with its process group
// and reaped, so the GPU is free again. A worker that died or was killed is
// replaced before its slot's next request: the same hello, then the setup the
// run recorded (set_restart_setup), so the fresh worker has the reference.
//
//   WorkerPool pool(executable, hello, {0});
//   pool.start();                                   // ready: each worker's target
//   auto ticket = pool.submit(slot, run_json(...), cubin, limit_s);
//   while (auto done = pool.wait_any()) { ... done->slot, done->device, done->kind ... }
#include <memtune/isolate/protocol.hpp>
#include <memtune/isolate/worker_process.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune::isolation {

struct Completion {
  enum class Kind {
    reply,     // the worker answered
    died,      // it exited or crashed before answering
    timed_out, // still running at its limit: killed
  };
  std::uint64_t ticket = 0;
  std::size_t slot = 0;
  int device = 0;           // the slot's GPU ordinal: results are attributed to their device
  Kind kind = Kind::reply;
  Frame reply;              // Kind::reply
  std::string reason;       // died / timed_out: what happened, with the worker's last output
  double seconds = 0;       // [seconds] from submit to completion
};

// What a worker's driver is shown (gpu_visibility.hpp): its own GPU only
// (its ready's device_count is then 1), or every GPU this process sees (the
// count `--devices all` needs).
enum class WorkerSight { own_gpu, every_gpu };

class WorkerPool {
public:
  // `hello` is sent to every worker, its device replaced by the slot's
  // ordinal as the worker sees it (0 where it sees its own GPU only).
  WorkerPool(std::filesystem::path executable, Hello hello, std::vector<int> devices,
             double startup_timeout_s = 600.0);
  ~WorkerPool(); // says bye, then kills and reaps what is left; never throws

  // Starts every worker and waits until each is ready. Throws WorkerError:
  // its own error reply (no GPU, a description it cannot rebuild), or kind
  // setup with how it died and its last output.
  void start();
  // Starts workers for more GPUs (after start(): the first worker told how
  // many there are) and waits until each is ready. Throws as start().
  void add(const std::vector<int>& devices);
  // The two halves of start() and add(), for a caller that reads each
  // worker's answer on its own: launch() starts a worker per GPU as more
  // slots (each process and its hello) without waiting, so that they all
  // initialise their GPUs at once, and returns the first new slot;
  // await_ready() waits for one slot's ready and throws as start().
  // A worker shown its own GPU only that finds no GPU (or not that one) is
  // started again seeing every GPU, so its error is the driver's own answer
  // ("there is no GPU 5: the driver reports 2").
  std::size_t launch(const std::vector<int>& devices, WorkerSight sight = WorkerSight::own_gpu);
  void await_ready(std::size_t slot);
  // Keeps the first `size` slots and kills the others' workers (launched
  // for GPUs that the first ready worker's driver does not report).
  void keep_first(std::size_t size);
  [[nodiscard]] std::size_t size() const { return slots_.size(); }
  [[nodiscard]] const Ready& ready(std::size_t slot) const;
  [[nodiscard]] int device(std::size_t slot) const;

  // What every replacement worker receives after hello (the reference, no
  // ceiling): recorded once the first setup succeeded.
  void set_restart_setup(const SetupRequest& setup, std::vector<char> blob);

  // One request and its reply, synchronously, on an idle slot (setup,
  // baselines). Throws WorkerError when the worker dies or times out.
  Frame call(std::size_t slot, const nlohmann::json& request, std::span<const char> blob, double timeout_s);
  // call() on every slot at once, requests[i] to slot i: each is sent before
  // any answer is awaited, so the workers set up side by side (a reference
  // computed on each GPU costs one reference's time, not one per GPU).
  // Replies in slot order; throws the first slot's WorkerError in slot order.
  std::vector<Frame> call_each(const std::vector<nlohmann::json>& requests, std::span<const char> blob, double timeout_s);

  // An idle slot, if any. A slot whose worker died is idle: submit replaces it.
  [[nodiscard]] std::optional<std::size_t> idle_slot() const;
  // Sends a request to an idle slot; its completion is at most `limit_s`
  // later. Throws WorkerError when a replacement worker cannot start.
  std::uint64_t submit(std::size_t slot, const nlohmann::json& request, std::span<const char> blob, double limit_s);
  // Blocks until a submitted request completes; nullopt when none is outstanding.
  std::optional<Completion> wait_any();
  // Kills a slot's worker (after a reply that says its context is lost or
  // its GPU busy); the slot gets a fresh worker before its next request.
  void retire(std::size_t slot);

  // Workers started after the first ones (replacements).
  [[nodiscard]] std::size_t restarts() const { return restarts_; }

private:
  struct Slot {
    int device = 0;
    WorkerSight sight = WorkerSight::own_gpu;
    std::optional<std::string> visible; // its CUDA_VISIBLE_DEVICES, where it sees its own GPU only
    std::unique_ptr<WorkerProcess> process;
    std::optional<Ready> ready;
    bool busy = false;
    std::uint64_t ticket = 0;
    std::chrono::steady_clock::time_point submitted, deadline;
    double limit_s = 0;
  };
  void begin_launch(Slot& slot);  // the process and its hello
  void finish_launch(Slot& slot); // its ready, or WorkerError
  void receive_ready(Slot& slot); // finish_launch without the second start
  void ensure_live(Slot& slot);
  Completion finish(Slot& slot, std::size_t index, Completion::Kind kind, Frame reply, std::string reason);
  std::string death_reason(Slot& slot) const;

  std::filesystem::path executable_;
  Hello hello_;
  double startup_timeout_s_;
  std::vector<Slot> slots_;
  std::optional<nlohmann::json> restart_setup_;
  std::vector<char> restart_blob_;
  std::uint64_t next_ticket_ = 1;
  std::size_t restarts_ = 0;
};

} // namespace memtune::isolation
