// memtune_scripted_worker: a worker process without a GPU, for the CPU tests
// of isolation. Not a test itself (it asserts nothing): the program those
// tests start, whose answers they check. It speaks the real protocol (serve_worker) with a backend
// whose answers are scripted by the candidate's "behaviour" parameter:
//   0 ok (time 1 ms x (1 + the "block" parameter / 1024); without "block", a
//     time between 1 and 2.6 ms that depends on every parameter)
//   1 crashes (SIGSEGV) after writing a line to stderr
//   2 hangs (never answers)
//   3 a sticky CUDA error (CUDA_ERROR_ILLEGAL_ADDRESS): answers, then leaves
//   4 exits with status 5 after a message
//   5 writes 256 KiB to stdout (more than a pipe holds), then ok
//   6 wrong result
// A problem variable "no_device" = 1 makes hello fail as on a machine without a GPU;
// "gpus" = N: the host has N GPUs, of which the driver reports those
// $CUDA_VISIBLE_DEVICES shows (hello on another ordinal fails); "mixed"
// = 1: the host's odd-numbered GPUs are of another model ($MEMTUNE_SCRIPTED_GPUS: the
// GPU count for a description without "gpus"); "broken_gpu" = k: hello on the
// host's GPU k fails (its context cannot be created); "start_ms": hello takes this long (a
// GPU's context), "setup_ms": the reference's setup takes this long;
// "ceiling_ms": measuring the copy ceiling takes this long, "ceiling_crash" =
// 1: the worker crashes measuring it.
// $MEMTUNE_SCRIPTED_LOG: a file where every run appends its configuration (one
// line), to count what was measured; $MEMTUNE_SCRIPTED_DELAY_MS: each run
// takes this long (time for a test to kill the tuning process mid-run).
#include "isolate/src/worker_server.hpp"

#include <memtune/model/target_catalog.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sys/prctl.h>
#include <unistd.h>

namespace memtune::isolation {
namespace {

// The host's GPUs 0..gpus-1 that $CUDA_VISIBLE_DEVICES shows, as the driver
// reads it: the listed ordinals up to the first it does not have or repeats.
std::vector<int> visible_gpus(int gpus) {
  std::vector<int> visible;
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!env) {
    for (int g = 0; g < gpus; ++g) visible.push_back(g);
    return visible;
  }
  for (const char* p = env; *p;) {
    char* end = nullptr;
    const long g = std::strtol(p, &end, 10);
    if (end == p || g < 0 || g >= gpus || std::find(visible.begin(), visible.end(), g) != visible.end()) break;
    visible.push_back(static_cast<int>(g));
    if (*end != ',') break;
    p = end + 1;
  }
  return visible;
}

class ScriptedBackend : public WorkerBackend {
public:
  Ready start(const Hello& hello) override {
    if (hello.problem.count("no_device") && hello.problem.at("no_device") == 1)
      throw WorkerError(WorkerError::Kind::no_device, "no NVIDIA driver (scripted)");
    const auto variable = [&](const char* name, std::int64_t fallback) {
      return hello.problem.count(name) ? hello.problem.at(name) : fallback;
    };
    setup_ms_ = variable("setup_ms", 0);
    ceiling_ms_ = variable("ceiling_ms", 0);
    ceiling_crash_ = variable("ceiling_crash", 0) == 1;
    const char* gpus_env = std::getenv("MEMTUNE_SCRIPTED_GPUS"); // for descriptions without "gpus"
    const int gpus = static_cast<int>(variable("gpus", gpus_env && *gpus_env ? std::atoi(gpus_env) : 1));
    const std::vector<int> visible = visible_gpus(gpus);
    if (visible.empty())
      throw WorkerError(WorkerError::Kind::no_device, "cuInit failed: CUDA_ERROR_NO_DEVICE (scripted)");
    const int count = static_cast<int>(visible.size());
    if (hello.device < 0 || hello.device >= count)
      throw WorkerError(WorkerError::Kind::argument, "there is no GPU " + std::to_string(hello.device) +
                                                         ": the driver reports " + std::to_string(count) + " (scripted)");
    const int gpu = visible[static_cast<std::size_t>(hello.device)]; // the host's GPU, as "broken_gpu" and "mixed" name it
    if (variable("broken_gpu", -1) == gpu)
      throw WorkerError(WorkerError::Kind::setup, "GPU " + std::to_string(gpu) + ": CUDA_ERROR_ECC_UNCORRECTABLE (scripted)");
    const std::int64_t start_ms = variable("start_ms", 0);
    if (start_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(start_ms));
    Target t = model::load_target_file(MEMTUNE_TEST_TARGET_FILE);
    t.name = "local";
    if (variable("mixed", 0) == 1 && gpu % 2 == 1) {
      t.display_name = "Scripted Other GPU";
      t.sm_count = 66;
    }
    return {t, static_cast<long>(::getpid()), 0.01 + static_cast<double>(start_ms) / 1000.0, count};
  }
  SetupDone setup(const SetupRequest& request) override {
    // A reference that takes a while (problem variable setup_ms): setups on several GPUs overlap.
    if (setup_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(setup_ms_));
    SetupDone done;
    // Each part's seconds as a GPU would report them, distinct so that a test sees which went where.
    done.inputs_seconds = std::exchange(inputs_seconds_, 0.0); // the first setup after ready reports them
    if (!request.references.empty()) {
      done.reference_time_s = 1e-3;
      done.reference_seconds = 0.02 + static_cast<double>(setup_ms_) / 1000.0;
    }
    if (request.ceiling_bytes) {
      if (ceiling_crash_) {
        std::fprintf(stderr, "scripted worker: the copy crashed\n");
        std::fflush(stderr);
        std::raise(SIGSEGV);
      }
      if (ceiling_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ceiling_ms_));
      done.ceiling_seconds = 0.03 + static_cast<double>(ceiling_ms_) / 1000.0;
      done.ceiling = scripted_copy(2000, request.ceiling_bytes, 1e-3);
    }
    if (request.same_size_bytes) {
      done.same_size_copy_seconds = 0.04;
      done.same_size_copy = scripted_copy(1500, request.same_size_bytes, 1e-4);
    }
    return done;
  }
  // A copy measurement as a GPU would report it.
  static CopyCeiling scripted_copy(double gbps, std::size_t bytes, double median_s) {
    CopyCeiling c;
    c.gbps = gbps;
    c.bytes = bytes;
    c.timing.median_s = median_s;
    c.timing.samples = 10;
    return c;
  }
  LaunchOutcome run(const LaunchRequest& request) override {
    if (const char* log = std::getenv("MEMTUNE_SCRIPTED_LOG"); log && *log) {
      if (std::FILE* f = std::fopen(log, "a")) {
        std::string line;
        for (const auto& [axis, value] : request.config.values()) line += axis + "=" + std::to_string(value) + " ";
        std::fprintf(f, "%s\n", line.c_str());
        std::fclose(f);
      }
    }
    if (const char* delay = std::getenv("MEMTUNE_SCRIPTED_DELAY_MS"); delay && *delay)
      std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(delay)));
    const std::int64_t behaviour = request.config.has("behaviour") ? request.config.at("behaviour") : 0;
    LaunchOutcome o;
    o.resources.registers = 32;
    o.driver_blocks_per_sm = 4;
    switch (behaviour) {
    case 1:
      std::fprintf(stderr, "scripted worker: about to crash\n");
      std::fflush(stderr);
      std::raise(SIGSEGV);
      break;
    case 2:
      while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
    case 3:
      o.status = Status::launch_failed;
      o.cuda_error = "CUDA_ERROR_ILLEGAL_ADDRESS";
      o.reason = "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered): scripted";
      o.context_lost = true;
      return o;
    case 4:
      std::fprintf(stderr, "scripted worker: giving up\n");
      std::exit(5);
    case 5: {
      const std::string chunk(1024, 'x');
      for (int i = 0; i < 256; ++i) std::fwrite(chunk.data(), 1, chunk.size(), stdout);
      std::fflush(stdout);
      break;
    }
    case 6:
      o.status = Status::wrong_result;
      o.reason = "3 of the outputs wrong (scripted)";
      return o;
    default: break;
    }
    Timing t;
    double factor = 0;
    if (request.config.has("block")) {
      factor = static_cast<double>(request.config.at("block")) / 1024.0;
    } else {
      std::int64_t mix = 0, k = 7;
      for (const auto& [axis, value] : request.config.values()) mix += value * (k += 6);
      factor = static_cast<double>(mix % 17) / 10.0;
    }
    t.median_s = t.min_s = t.max_s = 1e-3 * (1.0 + factor);
    t.samples = 10;
    o.timing = t;
    return o;
  }
  BaselineResult baseline(const std::string& name, std::uint64_t) override {
    BaselineResult b;
    b.name = name;
    b.message = "no baselines in the scripted worker";
    return b;
  }

private:
  std::int64_t setup_ms_ = 0;
  std::int64_t ceiling_ms_ = 0;
  bool ceiling_crash_ = false;
  double inputs_seconds_ = 0.01;
};

} // namespace
} // namespace memtune::isolation

int main(int argc, char** argv) {
  int fd = 3;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::strcmp(argv[i], "--fd") == 0) fd = std::atoi(argv[i + 1]);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::signal(SIGPIPE, SIG_IGN);
  memtune::isolation::ScriptedBackend backend;
  return memtune::isolation::serve_worker(fd, backend);
}
