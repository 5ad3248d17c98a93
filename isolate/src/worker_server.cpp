#include "worker_server.hpp"

#include <memtune/isolate/frame.hpp>

#include <cstdio>

namespace memtune::isolation {
namespace {

// After this reply the process must not serve another candidate.
struct Retire {};

void serve_request(int fd, const std::string& type, const Frame& frame, WorkerBackend& backend) {
  if (type == "setup") {
    const SetupDone done = backend.setup(setup_from_json(frame.message, frame.blob));
    write_frame(fd, to_json(done));
    if (done.context_lost) throw Retire{};
  } else if (type == "run") {
    const std::uint64_t id = frame.message.at("id").get<std::uint64_t>();
    const LaunchOutcome outcome = backend.run(run_from_json(frame.message, frame.blob));
    write_frame(fd, result_json(id, outcome));
    if (outcome.context_lost || outcome.gpu_busy) throw Retire{};
  } else if (type == "baseline") {
    write_frame(fd, baseline_json(backend.baseline(frame.message.at("name").get<std::string>(),
                                                   frame.message.at("bytes_moved").get<std::uint64_t>())));
  } else {
    throw ProtocolError("unknown request '" + type + "'");
  }
}

} // namespace

int serve_worker(int fd, WorkerBackend& backend) {
  bool started = false;
  try {
    while (true) {
      std::optional<Frame> frame = read_frame(fd);
      if (!frame) return kWorkerDone;
      const std::string type = message_type(frame->message);
      if (type == "bye") return kWorkerDone;
      try {
        if (type == "hello") {
          const Ready ready = backend.start(hello_from_json(frame->message));
          write_frame(fd, to_json(ready));
          started = true;
          backend.after_ready();
          continue;
        }
        if (!started) throw ProtocolError("'" + type + "' before hello");
        serve_request(fd, type, *frame, backend);
      } catch (const WorkerError& e) {
        write_frame(fd, error_json(e));
        return kWorkerCannotServe;
      } catch (const Retire&) {
        return kWorkerRetired;
      }
    }
  } catch (const ProtocolError& e) {
    std::fprintf(stderr, "memtune-worker: %s\n", e.what());
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "memtune-worker: a malformed request: %s\n", e.what());
  } catch (const std::exception& e) {
    // E.g. a sticky CUDA error in a baseline: this process is done.
    std::fprintf(stderr, "memtune-worker: %s\n", e.what());
    return kWorkerRetired;
  }
  return kWorkerCannotServe;
}

} // namespace memtune::isolation
