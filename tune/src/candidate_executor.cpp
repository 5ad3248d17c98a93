#include "candidate_executor.hpp"
#include "isolated_executor.hpp"

#include <memtune/isolate/frame.hpp>
#include <memtune/isolate/launcher_setup.hpp>
#include <memtune/isolate/worker_pool.hpp>

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/io/json_document.hpp>
#include <memtune/model/occupancy.hpp>

#include <chrono>
#include <map>
#include <variant>

namespace memtune::isolation {

CopyMeasurements copies_of(const SetupDone& done) {
  return {done.ceiling, done.same_size_copy, done.ceiling_seconds, done.same_size_copy_seconds};
}

WorkerSetupTimes worker_times(int device, double start_s, const SetupDone& done) {
  return {device, start_s, done.inputs_seconds, done.reference_seconds, done.expected_seconds};
}

namespace {

// ---------------------------------------------------------------- in this process

class InProcessExecutor : public CandidateExecutor {
public:
  InProcessExecutor(const KernelDescription& kernel, const Problem& problem, const ExecutionOptions& options, std::uint64_t seed,
                    const CompileCache* cache, std::string why)
      : device_(options.devices ? options.devices->first() : options.device), isolation_("off: " + why) {
    if (!cuda::driver_available())
      throw DeviceRequired("measuring needs an NVIDIA GPU: " + cuda::driver_unavailable_reason());
    // One GPU here: the others of a list need worker processes, and the header says so.
    if (options.devices && (options.devices->all || options.devices->ordinals.size() > 1))
      isolation_ += "; on GPU " + std::to_string(device_) + " only (--devices " + options.devices->to_string() +
                    " needs worker processes)";
    const auto began = std::chrono::steady_clock::now();
    launcher_.emplace(kernel, problem, LauncherOptions{device_, seed, options.measure, cache});
    start_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    inputs_s_ = prepare_inputs_timed(*launcher_);
  }

  const Target& target() const override { return launcher_->target(); }
  std::vector<int> devices() const override { return {device_}; }
  const std::string& isolation() const override { return isolation_; }

  ExecutorSetup setup(const std::vector<ReferencePlan>& references, std::size_t ceiling_bytes,
                      std::size_t same_size_bytes, const std::optional<search::Config>& expected_for) override {
    SetupRequest request;
    for (const ReferencePlan& r : references)
      request.references.push_back(LaunchRequest{r.config, r.launch, r.compiled.lowered_name, r.compiled.cubin});
    request.time_reference = true;
    request.ceiling_bytes = ceiling_bytes;
    request.same_size_bytes = same_size_bytes;
    request.expected_for = expected_for;
    SetupDone done = run_setup(*launcher_, request);
    if (done.context_lost) throw ContextLost{*done.reference_error};
    done.inputs_seconds = inputs_s_;
    ExecutorSetup s;
    s.reference_error = done.reference_error;
    s.reference_time_s = done.reference_time_s;
    s.expected_seconds = done.expected_seconds;
    s.copies = copies_of(done);
    s.workers = {worker_times(device_, start_s_, done)};
    return s;
  }

  // Runs the candidate at once (nothing else can run here meanwhile);
  // collect() hands it over.
  void submit(const LaunchRequest& candidate, double, std::uint64_t tag) override {
    if (done_) throw std::logic_error("InProcessExecutor::submit with a candidate in flight");
    done_ = CandidateDone{tag, CandidateRun{launcher_->run(candidate), device_, false}};
  }

  std::optional<CandidateDone> collect() override {
    std::optional<CandidateDone> done = std::exchange(done_, std::nullopt);
    // Nothing can stop a candidate here: a sticky error ends the run.
    if (done && done->run.outcome.context_lost)
      throw ContextLost{done->run.outcome.reason + " (isolation is " + isolation_ + ")"};
    return done;
  }

  BaselineResult baseline(const std::string& name, std::uint64_t bytes_moved) override {
    return launcher_->baseline(name, bytes_moved);
  }
  std::size_t restarts() const override { return 0; }

private:
  int device_;
  std::string isolation_;
  std::optional<CandidateLauncher> launcher_;
  double start_s_ = 0, inputs_s_ = 0; // [seconds] its context and target; its inputs
  std::optional<CandidateDone> done_;
};

// `ordinals` without `first` (whose worker started before them).
std::vector<int> others_than(int first, std::vector<int> ordinals) {
  std::erase(ordinals, first);
  return ordinals;
}

} // namespace

DescriptionSource worker_source(const KernelDescription& kernel) {
  DescriptionSource s;
  s.name = kernel.name;
  s.fingerprint = kernel.fingerprint();
  std::error_code ec;
  if (!kernel.origin.empty() && std::filesystem::is_regular_file(kernel.origin, ec)) {
    s.kind = DescriptionSource::Kind::file;
    // As the tuning process named it: the worker shares its working folder,
    // and a relative include path must read the same in both.
    s.path = kernel.origin;
    s.content = io::read_text_file(kernel.origin);
  } else if (kernel.not_data_because().empty()) {
    s.kind = DescriptionSource::Kind::data;
    s.path = kernel.origin.empty() ? "(made in C++)" : kernel.origin;
    s.content = kernel.to_data().dump();
  }
  return s;
}

void recompute_occupancy(Evaluation& e, const Target& target) {
  if (e.status == Status::compile_failed || e.block_threads <= 0 || e.resources.registers <= 0) return;
  try {
    e.occupancy = model::compute_occupancy(target, {e.block_threads, e.resources.registers,
                                                    e.resources.static_smem_bytes, e.dynamic_smem_bytes});
  } catch (const std::invalid_argument&) {
    // cuda_occupancy.h does not know this GPU: the driver's count is still there.
  }
}

void merge_outcome(Evaluation& e, const LaunchOutcome& o, const Target& target, std::uint64_t bytes_moved,
                   double ceiling_gbps) {
  if (o.resources.registers > 0) { // the function was loaded: it is the ground truth (spills stay ptxas')
    e.resources.registers = o.resources.registers;
    e.resources.static_smem_bytes = o.resources.static_smem_bytes;
    e.resources.stack_frame_bytes = o.resources.stack_frame_bytes;
  }
  e.driver_blocks_per_sm = o.driver_blocks_per_sm;
  recompute_occupancy(e, target);
  e.status = o.status;
  e.reason = o.reason;
  if (o.status == Status::exceeds_device_limits && o.driver_blocks_per_sm == 0 && !e.occupancy.cannot_launch.empty())
    e.reason += ": " + e.occupancy.cannot_launch;
  e.max_abs_error = o.max_abs_error;
  e.timing = o.timing;
  e.energy = o.energy;
  e.energy_error = o.energy_error;
  if (e.ok() && e.timing) {
    e.gbps = static_cast<double>(bytes_moved) / e.timing->median_s / 1e9;
    e.fraction_of_ceiling = ceiling_gbps > 0 ? e.gbps / ceiling_gbps : 0.0;
    e.fraction_of_peak = target.dram_bandwidth_gbs > 0 ? e.gbps / target.dram_bandwidth_gbs : 0.0;
  }
}

std::unique_ptr<CandidateExecutor> start_executor(const KernelDescription& kernel, const Problem& problem,
                                                  const ExecutionOptions& options, std::uint64_t seed,
                                                  const CompileCache* cache) {
  const auto in_process = [&](const std::string& why) {
    return std::make_unique<InProcessExecutor>(kernel, problem, options, seed, cache, why);
  };
  if (!options.isolation.enabled) return in_process("--no-isolation");
  std::filesystem::path executable;
  if (options.isolation.worker) {
    executable = *options.isolation.worker;
  } else {
    std::string looked_in;
    const auto found = find_worker_executable(looked_in);
    if (!found) return in_process("no memtune-worker program (looked for " + looked_in + "; set MEMTUNE_WORKER)");
    executable = *found;
  }
  Hello hello;
  hello.description = worker_source(kernel);
  hello.problem = problem;
  hello.seed = seed;
  hello.device = options.device;
  hello.measure = options.measure;
  if (cache) hello.cache_folder = cache->folder().string();
  // Every worker starts at once when the GPUs are known before any starts:
  // one GPU, a list, or `all` counted by this process's driver while the
  // first worker starts (without a driver here, the first worker's ready
  // says how many there are, and the others start after it). Each sees its
  // own GPU only, but for `all` the first, whose count is the host's.
  const DeviceList* list = options.devices ? &*options.devices : nullptr;
  const int first = list ? list->first() : options.device;
  auto pool = std::make_unique<WorkerPool>(executable, hello, std::vector<int>{});
  if (list && list->all) (void)pool->launch({first}, WorkerSight::every_gpu);
  else (void)pool->launch(list ? list->ordinals : std::vector<int>{first});
  if (list && list->all) {
    const std::optional<int> count = options.isolation.count_gpus ? options.isolation.count_gpus() : cuda::device_count();
    if (count) (void)pool->launch(others_than(first, list->resolve(*count)));
  }
  // The first GPU's answer decides whether there is a GPU and a worker at all.
  try {
    pool->await_ready(0);
  } catch (const WorkerError& e) {
    if (e.kind == WorkerError::Kind::no_device) throw DeviceRequired(std::string("measuring needs an NVIDIA GPU: ") + e.what());
    if (e.kind == WorkerError::Kind::argument)
      throw std::invalid_argument(list ? "--devices " + list->to_string() + ": " + e.what() : std::string(e.what()));
    if (e.kind == WorkerError::Kind::description) {
      const std::string because = kernel.not_data_because();
      return in_process(std::string(e.what()) + (because.empty() ? "" : ", and it cannot travel as data: " + because));
    }
    return in_process(std::string("the worker process did not start: ") + e.what());
  }
  if (list) {
    if (list->all) {
      // The first worker's driver has the last word: this process's count
      // only let the others start early. `all` is GPUs 0..n-1, slot i GPU i.
      const std::vector<int> every = list->resolve(pool->ready(0).device_count);
      if (every.size() < pool->size()) pool->keep_first(every.size());
      else (void)pool->launch(std::vector<int>(every.begin() + static_cast<std::ptrdiff_t>(pool->size()), every.end()));
    }
    for (std::size_t slot = 1; slot < pool->size(); ++slot) {
      try {
        pool->await_ready(slot);
      } catch (const WorkerError& e) {
        // A GPU the host does not have: the worker that saw every GPU says so, with the driver's count.
        if (e.kind == WorkerError::Kind::argument) throw std::invalid_argument("--devices " + list->to_string() + ": " + e.what());
        // The first GPU works: another that does not is the user's to fix, not a reason to run elsewhere.
        throw std::runtime_error("--devices " + list->to_string() + ": a worker did not start: " + e.what());
      }
    }
    std::vector<std::pair<int, DeviceFingerprint>> models;
    for (std::size_t slot = 0; slot < pool->size(); ++slot)
      models.emplace_back(pool->device(slot), fingerprint(pool->ready(slot).target));
    if (std::vector<DeviceGroup> groups = group_by_model(models); groups.size() > 1) throw MixedDevices(std::move(groups));
  }
  return std::make_unique<IsolatedExecutor>(std::move(pool), executable);
}

} // namespace memtune::isolation
