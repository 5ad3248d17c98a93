// memtune-worker's backend: candidates launched on the GPU with the same
// CandidateLauncher as an in-process run.
#include <memtune/isolate/candidate_launcher.hpp>
#include <memtune/isolate/launcher_setup.hpp>
#include "worker_server.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/isolate/worker_main.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include <sys/prctl.h>
#include <unistd.h>

namespace memtune::isolation {
namespace {

class CudaBackend : public WorkerBackend {
public:
  CudaBackend(BuiltInDescriptions built_ins, std::chrono::steady_clock::time_point began)
      : built_ins_(std::move(built_ins)), began_(began) {}

  Ready start(const Hello& hello) override {
    description_ = rebuild(hello.description);
    if (!hello.cache_folder.empty()) cache_.emplace(hello.cache_folder);
    int count = 0;
    try {
      MEMTUNE_CU(cuda::driver_api().cuDeviceGetCount(&count));
    } catch (const cuda::DriverUnavailable& e) {
      throw WorkerError(WorkerError::Kind::no_device, e.what());
    }
    if (hello.device < 0 || hello.device >= count)
      throw WorkerError(WorkerError::Kind::argument, "there is no GPU " + std::to_string(hello.device) +
                                                         ": the driver reports " + std::to_string(count) +
                                                         " (ordinals 0-" + std::to_string(count - 1) + ")");
    try {
      launcher_.emplace(*description_, hello.problem,
                        LauncherOptions{hello.device, hello.seed, hello.measure, cache_ ? &*cache_ : nullptr});
    } catch (const cuda::DriverUnavailable& e) {
      throw WorkerError(WorkerError::Kind::no_device, e.what());
    } catch (const std::exception& e) {
      throw WorkerError(WorkerError::Kind::setup, e.what());
    }
    return {launcher_->target(), static_cast<long>(::getpid()),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - began_).count(), count};
  }

  void after_ready() override {
    try {
      inputs_seconds_ = prepare_inputs_timed(*launcher_);
    } catch (const std::invalid_argument& e) {
      deferred_.emplace(WorkerError::Kind::argument, e.what());
    } catch (const std::exception& e) {
      deferred_.emplace(WorkerError::Kind::setup, e.what());
    }
  }

  SetupDone setup(const SetupRequest& request) override {
    if (deferred_) throw *deferred_;
    SetupDone done = run_setup(*launcher_, request);
    done.inputs_seconds = std::exchange(inputs_seconds_, 0.0); // the first setup after ready reports them
    return done;
  }

  LaunchOutcome run(const LaunchRequest& request) override { return launcher_->run(request); }

  BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved) override {
    return launcher_->baseline(name, bytes_moved);
  }

private:
  const KernelDescription* rebuild(const DescriptionSource& source) {
    const KernelDescription* d = nullptr;
    if (source.kind == DescriptionSource::Kind::built_in) {
      d = built_ins_ ? built_ins_(source.name) : nullptr;
      if (!d)
        throw WorkerError(WorkerError::Kind::description,
                          "'" + source.name + "' is not a built-in description of this worker");
    } else if (source.kind == DescriptionSource::Kind::data) {
      try {
        own_ = description_from_data(nlohmann::ordered_json::parse(source.content), source.path);
        d = &*own_;
      } catch (const std::exception& e) {
        throw WorkerError(WorkerError::Kind::description, "cannot rebuild '" + source.name + "' from data: " + e.what());
      }
    } else {
      try {
        const auto document = nlohmann::ordered_json::parse(source.content);
        own_ = description_from_json(document, source.path, std::filesystem::path(source.path).parent_path());
        d = &*own_;
      } catch (const std::exception& e) {
        throw WorkerError(WorkerError::Kind::description, "cannot rebuild " + source.path + ": " + e.what());
      }
    }
    if (d->fingerprint() != source.fingerprint)
      throw WorkerError(WorkerError::Kind::description,
                        "the worker's '" + source.name + "' differs from the tuning process's (fingerprint " +
                            d->fingerprint() + " against " + source.fingerprint +
                            (source.kind == DescriptionSource::Kind::file
                                 ? "): a source file changed on disk since the description was read"
                             : source.kind == DescriptionSource::Kind::data
                                 ? "): the description does not survive its data form (KernelDescription::to_data)"
                                 : "): memtune-worker comes from another build, or the description was changed in C++"));
    return d;
  }

  BuiltInDescriptions built_ins_;
  std::chrono::steady_clock::time_point began_;
  std::optional<KernelDescription> own_;
  const KernelDescription* description_ = nullptr;
  std::optional<CompileCache> cache_;
  std::optional<CandidateLauncher> launcher_;
  std::optional<WorkerError> deferred_; // from after_ready, for the next request
  double inputs_seconds_ = 0;           // [seconds] after_ready's inputs, until a setup reports them
};

} // namespace

int worker_main(int argc, char** argv, const BuiltInDescriptions& built_ins) {
  const auto began = std::chrono::steady_clock::now();
  int fd = 3;
  long parent = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--fd") == 0) fd = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--parent") == 0) parent = std::atol(argv[i + 1]);
  }
  // Never outlive the tuning process: a worker stuck in a kernel would hold the GPU.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent > 0 && ::getppid() != parent) return kWorkerDone; // it died before the line above
  std::signal(SIGPIPE, SIG_IGN);
  CudaBackend backend(built_ins, began);
  return serve_worker(fd, backend);
}

} // namespace memtune::isolation
