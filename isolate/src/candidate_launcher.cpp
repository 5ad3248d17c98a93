#include <memtune/isolate/candidate_launcher.hpp>
#include <memtune/compile/compile_request.hpp>
#include <memtune/compile/kernel_resources.hpp>

#include <memtune/measure/copy_ceiling.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/event.hpp>
#include <memtune/cuda/launch.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/measure/energy_meter.hpp>
#include <memtune/measure/target_resolver.hpp>

#include <memtune/measure/library_baseline.hpp>
#include <memtune/measure/reference_run.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace memtune::isolation {
namespace {


int function_attribute(CUfunction fn, CUfunction_attribute attribute) {
  int value = 0;
  MEMTUNE_CU(cuda::driver_api().cuFuncGetAttribute(&value, attribute, fn));
  return value;
}

// "12 of the outputs wrong (out), first at index 96; max error inf > tolerance 1e-06"
std::string describe_wrong(const Verification& v) {
  char buf[240];
  std::snprintf(buf, sizeof buf, "%lld of the outputs wrong%s, first at index %lld; max error %.3g > tolerance %.3g",
                static_cast<long long>(v.bad_count), v.buffer.empty() ? "" : (" (" + v.buffer + ")").c_str(),
                static_cast<long long>(v.first_bad), v.max_abs_error, v.tolerance);
  if (v.bad_count == 0) return v.note; // nothing compared wrong: the note says what is (a damaged guard region)
  return v.note.empty() ? std::string(buf) : std::string(buf) + "; " + v.note;
}

LaunchOutcome failed(LaunchOutcome o, Status status, std::string reason) {
  o.status = status;
  o.reason = std::move(reason);
  o.timing.reset();
  return o;
}

LaunchOutcome cuda_failure(LaunchOutcome o, const cuda::DriverError& err) {
  o.cuda_error = cuda_error_name(err.code());
  o.context_lost = err.is_sticky();
  return failed(std::move(o), Status::launch_failed,
                o.context_lost ? explain_cuda_error(err.code()) : std::string(err.what()));
}

} // namespace

std::string cuda_error_name(CUresult code) {
  const std::string text = cuda::describe(code);
  return text.substr(0, text.find(" ("));
}

std::string explain_cuda_error(CUresult code) {
  std::string why;
  switch (code) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    why = "the kernel read or wrote an address outside its buffers (an index out of bounds?)";
    break;
  case CUDA_ERROR_MISALIGNED_ADDRESS:
    why = "the kernel accessed memory at an address not aligned to the access size (a float2/float4 access at an "
          "address that is not a multiple of 8/16?)";
    break;
  case CUDA_ERROR_ASSERT: why = "a device-side assert() failed"; break;
  case CUDA_ERROR_ILLEGAL_INSTRUCTION: why = "the kernel executed an illegal instruction (a __trap()?)"; break;
  case CUDA_ERROR_LAUNCH_FAILED:
    why = "the kernel stopped with an unspecified failure (a __trap(), or an access the GPU could not classify)";
    break;
  case CUDA_ERROR_HARDWARE_STACK_ERROR: why = "the kernel overflowed its call stack (deep recursion?)"; break;
  case CUDA_ERROR_INVALID_PC: why = "the kernel jumped to an invalid program counter"; break;
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    why = "the kernel used an address in the wrong memory space (a shared-memory pointer used as global?)";
    break;
  default: return cuda::describe(code);
  }
  return cuda::describe(code) + ": " + why +
         "; the GPU context is unusable after this error (compute-sanitizer --tool memcheck on this configuration "
         "shows the access)";
}

struct CandidateLauncher::State {
  const KernelDescription& description;
  Problem problem;
  LauncherOptions options;
  cuda::Context context;
  Target target;
  std::optional<DescribedWorkload> workload_;
  std::optional<Timer> timer_;
  std::optional<EnergyMeter> meter_;
  std::string meter_error_; // why there is no meter (asked once: the answer does not change)

  State(const KernelDescription& d, const Problem& given, const LauncherOptions& o)
      : description(d), problem(d.complete(given)), options(o), context(o.device),
        target(with_catalogue_figures(local_target(o.device))) {}

  void prepare() {
    if (workload_) return;
    workload_.emplace(description, problem, target, options.seed);
    workload_->upload({target.compute_capability(), options.cache});
    timer_.emplace(target.l2_bytes, options.measure);
  }
  DescribedWorkload& workload() {
    prepare();
    return *workload_;
  }
  Timer& timer() {
    prepare();
    return *timer_;
  }
  // The energy meter, opened on first use; nullptr (and meter_error_ says
  // why) where this GPU cannot be metered.
  EnergyMeter* meter() {
    if (!meter_ && meter_error_.empty()) {
      try {
        meter_.emplace(context.device(), options.measure.energy);
      } catch (const EnergyUnavailable& e) {
        meter_error_ = e.what();
      }
    }
    return meter_ ? &*meter_ : nullptr;
  }
  // After the times: the energy of warm back-to-back batches (energy_meter.hpp).
  // A failure is the candidate's energy_error, never its status: its time stands.
  void measure_energy(LaunchOutcome& o, const std::function<void(CUstream)>& launch) {
    EnergyMeter* m = meter();
    if (!m) {
      o.energy_error = meter_error_;
      return;
    }
    std::function<void(CUstream)> refill;
    if (workload().refills_before_launch()) refill = [this](CUstream stream) { workload().before_launch(stream); };
    try {
      o.energy = m->measure(launch, timer().stream(), o.timing->median_s, refill);
    } catch (const EnergyUnavailable& e) {
      o.energy_error = e.what();
    } catch (const nvml::NvmlError& e) {
      o.energy_error = e.what();
    }
  }
};

CandidateLauncher::CandidateLauncher(const KernelDescription& description, const Problem& problem,
                                     const LauncherOptions& options)
    : state_(std::make_unique<State>(description, problem, options)) {}

void CandidateLauncher::prepare_inputs() { state_->prepare(); }

CandidateLauncher::~CandidateLauncher() = default;

const Target& CandidateLauncher::target() const { return state_->target; }

ReferenceOutcome CandidateLauncher::run_reference(const LaunchRequest& r, bool time_it) {
  State& s = *state_;
  ReferenceOutcome out;
  const std::string what = s.description.verify.mode == VerifySpec::Mode::reference_config
                               ? "the reference configuration" : "the reference kernel";
  try {
    out.error = launch_reference(what, r.config, r.launch, r.cubin, r.lowered_name, s.workload(), s.timer().stream());
    if (out.error || !time_it) return out;
    // One more launch, events around it: the yardstick of the watchdog's limit, not a measurement.
    cuda::Module module(std::vector<char>(r.cubin.begin(), r.cubin.end()));
    CUfunction fn = module.function(r.lowered_name);
    cuda::allow_dynamic_smem(fn, r.launch);
    std::vector<void*> args = s.workload().kernel_args(r.config);
    s.workload().prepare(module.get(), r.config);
    s.workload().before_launch(s.timer().stream());
    cuda::Event start, stop;
    start.record(s.timer().stream());
    const LaunchSpec& l = r.launch;
    cuda::launch_kernel(fn, l, s.timer().stream(), args.data());
    stop.record(s.timer().stream());
    stop.synchronize();
    out.time_s = cuda::elapsed_seconds(start, stop);
  } catch (const cuda::DriverError& e) {
    out.context_lost = e.is_sticky();
    out.error = what + " failed: " + (out.context_lost ? explain_cuda_error(e.code()) : std::string(e.what()));
  } catch (const std::invalid_argument& e) {
    out.error = what + " cannot run: " + e.what();
  }
  return out;
}

double CandidateLauncher::prepare_expected(const search::Config& config) {
  State& s = *state_;
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)s.workload().kernel_args(config);
    (void)s.workload().verify(s.timer().stream()); // the outputs hold nothing yet: only the expected values matter
  } catch (const cuda::DriverError& e) {
    if (e.is_sticky()) throw;
    return 0.0; // the first candidate that needs them meets the same error, and reports it
  } catch (const std::exception&) {
    return 0.0;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

CopyCeiling CandidateLauncher::measure_ceiling(std::size_t bytes) { return measure_copy_ceiling(state_->timer(), bytes); }

LaunchOutcome CandidateLauncher::run(const LaunchRequest& c) {
  State& s = *state_;
  LaunchOutcome o;
  const cuda::DriverApi& cu = cuda::driver_api();
  const LaunchSpec& l = c.launch;
  const auto block_threads = static_cast<int>(l.block.count());
  try {
    cuda::Module module(std::vector<char>(c.cubin.begin(), c.cubin.end()));
    CUfunction fn = module.function(c.lowered_name);
    // The loaded function is the ground truth for its resources.
    o.resources.registers = function_attribute(fn, CU_FUNC_ATTRIBUTE_NUM_REGS);
    o.resources.static_smem_bytes = static_cast<std::size_t>(function_attribute(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
    o.resources.stack_frame_bytes = static_cast<std::size_t>(function_attribute(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
    // __launch_bounds__ (or the registers the kernel needs) cap the block size
    // below the device's: launching past it is an error, not a measurement.
    const int max_threads = function_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    if (auto why = block_bound_violation(block_threads, max_threads, o.resources.registers))
      return failed(std::move(o), Status::exceeds_device_limits, std::move(*why));
    cuda::allow_dynamic_smem(fn, l);
    // The driver's count is the truth; the tuning process's occupancy calculator says what limits it.
    MEMTUNE_CU(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&o.driver_blocks_per_sm, fn, block_threads,
                                                              l.dynamic_smem_bytes));
    if (o.driver_blocks_per_sm == 0) return failed(std::move(o), Status::exceeds_device_limits, "no block fits on an SM");

    std::vector<void*> args;
    try {
      args = s.workload().kernel_args(c.config);
      s.workload().prepare(module.get(), c.config);
    } catch (const std::invalid_argument& err) {
      return failed(std::move(o), Status::launch_failed, err.what());
    }
    auto launch = [&](CUstream stream) {
      cuda::launch_kernel(fn, l, stream, args.data());
    };

    // Correctness first, on a poisoned output.
    s.workload().poison(s.timer().stream());
    launch(s.timer().stream());
    Verification v = s.workload().verify(s.timer().stream());
    o.max_abs_error = v.max_abs_error;
    if (!v.ok) return failed(std::move(o), Status::wrong_result, describe_wrong(v));

    try {
      // An inout buffer is refilled before every sample, outside the timed region.
      std::function<void(CUstream)> refill;
      if (s.workload().refills_before_launch()) refill = [&](CUstream stream) { s.workload().before_launch(stream); };
      o.timing = s.timer().time(launch, refill);
    } catch (const Timeout& t) {
      o.gpu_busy = true; // the launch may still be running
      return failed(std::move(o), Status::timeout, t.what());
    }
    // The last timed launch must be as right as the first: a race, or state
    // kept from one launch to the next, shows here.
    v = s.workload().verify(s.timer().stream());
    o.max_abs_error = std::max(o.max_abs_error, v.max_abs_error);
    if (!v.ok)
      return failed(std::move(o), Status::wrong_result,
                    "the result changes between launches (a data race, or state kept from one launch to the next): "
                    "the first launch verified, the last timed launch has " + describe_wrong(v));
    if (s.options.measure.energy.enabled) s.measure_energy(o, launch);
    return o;
  } catch (const cuda::DriverError& err) {
    return cuda_failure(std::move(o), err);
  } catch (const std::exception& err) {
    return failed(std::move(o), Status::launch_failed, err.what());
  }
}

BaselineResult CandidateLauncher::baseline(const std::string& name, std::uint64_t bytes_moved) {
  State& s = *state_;
  BaselineResult b;
  b.name = name;
  try {
    s.context.make_current(); // libraries on the runtime API adopt the current context
    const BaselineContext buffers{s.problem, [&](const std::string& buffer) { return s.workload().buffer(buffer); }};
    std::unique_ptr<Baseline> baseline = make_baseline(s.description, name, buffers);
    if (!baseline) {
      b.message = "no baseline '" + name + "' for " + s.description.name;
      return b;
    }
    b.description = baseline->description();
    b.available = baseline->available();
    if (!b.available) {
      b.message = baseline->unavailable_reason();
      return b;
    }
    s.workload().poison(s.timer().stream());
    baseline->launch(s.timer().stream());
    const Verification v = s.workload().verify(s.timer().stream());
    b.max_abs_error = v.max_abs_error;
    b.verified = v.ok;
    if (!v.ok) {
      b.message = "wrong result: " + describe_wrong(v);
      return b;
    }
    b.timing = s.timer().time([&](CUstream stream) { baseline->launch(stream); });
    b.gbps = static_cast<double>(bytes_moved) / b.timing->median_s / 1e9;
  } catch (const cuda::DriverError& err) {
    if (err.is_sticky()) throw;
    b.verified = false;
    b.message = err.what();
  } catch (const std::exception& err) {
    b.verified = false;
    b.message = err.what();
  }
  return b;
}

} // namespace memtune::isolation
