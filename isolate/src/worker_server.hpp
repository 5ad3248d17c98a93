#pragma once
// Internal to isolation: the worker's side of the protocol (protocol.hpp).
// serve_worker() answers requests one at a time with a backend: the CUDA one
// in memtune-worker, a scripted one in the tests (no GPU).
#include <memtune/isolate/protocol.hpp>

namespace memtune::isolation {

class WorkerBackend {
public:
  virtual ~WorkerBackend() = default;
  // Throws WorkerError (no GPU, a description it cannot rebuild, ...).
  virtual Ready start(const Hello& hello) = 0;
  // Right after ready is sent: work that overlaps the tuning process's (the
  // inputs). A failure is kept and thrown by the next request.
  virtual void after_ready() {}
  virtual SetupDone setup(const SetupRequest& request) = 0;
  virtual LaunchOutcome run(const LaunchRequest& request) = 0;
  virtual BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved) = 0;
};

// Exit codes of a worker.
inline constexpr int kWorkerDone = 0;         // bye, or the tuning process closed the connection
inline constexpr int kWorkerCannotServe = 2;  // replied an error to hello, or a protocol error
inline constexpr int kWorkerRetired = 3;      // a candidate left the context unusable or the GPU busy

// Serves requests arriving on `fd` until bye, end of input, or a candidate
// after which this process must not run another (context lost, GPU busy).
// Returns the exit code.
int serve_worker(int fd, WorkerBackend& backend);

} // namespace memtune::isolation
