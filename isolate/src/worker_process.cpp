#include <memtune/isolate/worker_process.hpp>

#include <memtune/model/install_layout.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MEMTUNE_INSTALL_BIN_DIR
#define MEMTUNE_INSTALL_BIN_DIR "/usr/local/bin"
#endif

namespace memtune::isolation {
namespace {

constexpr std::size_t kTailBytes = 4096;

void close_quietly(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// In the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(int socket, int output, const char* path, char* const argv[], char* const envp[]) {
  ::setpgid(0, 0);
  if (::dup2(output, 1) < 0 || ::dup2(output, 2) < 0 || ::dup2(socket, 3) < 0) ::_exit(126);
  // Nothing else of the tuning process leaks into the worker (journal, cache files).
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, 4U, ~0U, 0U) != 0)
#endif
    for (int fd = 4; fd < 4096; ++fd) ::close(fd);
  ::execve(path, argv, envp);
  static const char message[] = "memtune: cannot execute the worker program\n";
  [[maybe_unused]] const auto ignored = ::write(2, message, sizeof message - 1);
  ::_exit(127);
}

// This process's environment, one variable replaced (or added) when given:
// built before fork, since the child may only call async-signal-safe functions.
std::vector<std::string> child_environment(const char* name, const std::optional<std::string>& value) {
  std::vector<std::string> env;
  const std::string prefix = std::string(name) + "=";
  for (char** e = environ; e && *e; ++e)
    if (!value || std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) env.emplace_back(*e);
  if (value) env.push_back(prefix + *value);
  return env;
}

} // namespace

WorkerProcess::WorkerProcess(const std::filesystem::path& executable,
                             const std::optional<std::string>& cuda_visible_devices) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0)
    throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  const std::string path = executable.string();
  const std::string parent = std::to_string(::getpid());
  std::vector<std::string> args{path, "--fd", "3", "--parent", parent};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = child_environment("CUDA_VISIBLE_DEVICES", cuda_visible_devices);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_ = ::fork();
  if (pid_ < 0) {
    for (int fd : {sockets[0], sockets[1], pipe_fds[0], pipe_fds[1]}) ::close(fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid_ == 0) exec_child(sockets[1], pipe_fds[1], path.c_str(), argv.data(), envp.data());
  ::setpgid(pid_, pid_); // also here: whichever runs first, the group exists before a kill
  ::close(sockets[1]);
  ::close(pipe_fds[1]);
  socket_ = sockets[0];
  output_ = pipe_fds[0];
  ::fcntl(output_, F_SETFL, ::fcntl(output_, F_GETFL) | O_NONBLOCK);
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) kill_and_reap();
  close_quietly(socket_);
  close_quietly(output_);
}

void WorkerProcess::send(const nlohmann::json& message, std::span<const char> blob) {
  if (closed_) throw ProtocolError("the worker process is gone");
  write_frame(socket_, message, blob);
}

bool WorkerProcess::pump_socket() {
  if (closed_) return false;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::recv(socket_, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n > 0) {
      frames_.feed(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    closed_ = true; // end of stream, or the connection reset
    return false;
  }
}

void WorkerProcess::pump_output() {
  if (output_ < 0) return;
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(output_, buffer, sizeof buffer);
    if (n > 0) {
      append_output(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) close_quietly(output_); // every writer is gone
    return;
  }
}

void WorkerProcess::append_output(const char* data, std::size_t bytes) {
  tail_.append(data, bytes);
  if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
}

std::optional<Frame> WorkerProcess::receive(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    if (auto frame = frames_.pop()) return frame;
    if (closed_) throw ProtocolError("the worker process closed the connection");
    const auto left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    pollfd fds[2] = {{socket_, POLLIN, 0}, {output_, POLLIN, 0}};
    const int n = ::poll(fds, output_ >= 0 ? 2 : 1, static_cast<int>(std::min(left * 1000.0 + 1, 60000.0)));
    if (n < 0 && errno != EINTR) throw ProtocolError(std::string("poll: ") + std::strerror(errno));
    if (fds[1].revents) pump_output();
    if (fds[0].revents) pump_socket();
  }
}

void WorkerProcess::kill_and_reap() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL); // in case it had not reached setpgid yet
  while (::waitpid(pid_, &wait_status_, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  closed_ = true;
  pump_output(); // what it wrote before it went
}

std::string WorkerProcess::exit_description() const {
  if (!reaped_) return "still running";
  if (WIFEXITED(wait_status_)) return "exited with status " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) {
    const int sig = WTERMSIG(wait_status_);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : std::string{});
  }
  return "ended (wait status " + std::to_string(wait_status_) + ")";
}

std::string WorkerProcess::output_tail() const {
  std::string t = tail_.size() > kTailBytes ? tail_.substr(tail_.size() - kTailBytes) : tail_;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

std::optional<std::filesystem::path> find_worker_executable(std::string& looked_in) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  std::error_code ec;
  if (const char* env = std::getenv("MEMTUNE_WORKER"); env && *env) {
    candidates.emplace_back(env); // when set, the only place
  } else {
    candidates = worker_candidates();
  }
  looked_in.clear();
  for (const auto& c : candidates) {
    if (::access(c.c_str(), X_OK) == 0 && fs::is_regular_file(c, ec)) return c;
    looked_in += (looked_in.empty() ? "" : ", ") + c.string();
  }
  return std::nullopt;
}

} // namespace memtune::isolation
