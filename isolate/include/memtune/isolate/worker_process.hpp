#pragma once
// Internal to isolation: one worker process, as the supervisor sees it. It
// runs in its own process group (so SIGKILL reaches anything it started),
// dies with the tuning process (PR_SET_PDEATHSIG, set by the worker), talks
// over a Unix socket on its descriptor 3, and writes its stdout and stderr
// (device printf included) into one pipe whose last few KiB are kept: the
// reason shown when it dies.
#include <memtune/isolate/frame.hpp>

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace memtune::isolation {

class WorkerProcess {
public:
  // Starts `executable --fd 3 --parent <this pid>` with this process's
  // environment, CUDA_VISIBLE_DEVICES replaced by `cuda_visible_devices` when
  // given. Throws std::runtime_error when no process can be created; an
  // executable that cannot run shows as a worker that dies at once (its
  // output says why).
  explicit WorkerProcess(const std::filesystem::path& executable,
                         const std::optional<std::string>& cuda_visible_devices = std::nullopt);
  ~WorkerProcess(); // kills and reaps it if still running; never throws
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] int socket_fd() const { return socket_; }
  [[nodiscard]] int output_fd() const { return output_; }
  [[nodiscard]] bool alive() const { return !reaped_ && !closed_; }

  // Throws ProtocolError when it is gone.
  void send(const nlohmann::json& message, std::span<const char> blob = {});
  // Reads whatever has arrived (call when poll says so); false when the
  // connection closed (the worker exited or died).
  bool pump_socket();
  void pump_output();
  // A complete reply, if one has arrived.
  std::optional<Frame> next_frame() { return frames_.pop(); }
  // Blocks until a reply arrives or `timeout_s` passes (nullopt), draining
  // its output meanwhile. Throws ProtocolError when it dies first.
  std::optional<Frame> receive(double timeout_s);

  // SIGKILL to its process group, then waits for it to be gone (its GPU
  // context destroyed, so the GPU is free for the next worker).
  void kill_and_reap();
  // "exited with status 3", "was killed by signal 11 (Segmentation fault)"; after kill_and_reap.
  [[nodiscard]] std::string exit_description() const;
  // The last bytes of its stdout and stderr, trimmed, for a reason.
  [[nodiscard]] std::string output_tail() const;

private:
  void append_output(const char* data, std::size_t bytes);
  pid_t pid_ = -1;
  int socket_ = -1;
  int output_ = -1;
  bool closed_ = false;
  bool reaped_ = false;
  int wait_status_ = 0;
  FrameAssembler frames_;
  std::string tail_;
};

// The worker executable: $MEMTUNE_WORKER (when set, the only place), else memtune-worker next to this
// program (a build tree), else in libexec/memtune of the install (install_layout.hpp). nullopt with
// `looked_in` listing the places when none exists.
std::optional<std::filesystem::path> find_worker_executable(std::string& looked_in);

} // namespace memtune::isolation
