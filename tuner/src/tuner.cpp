#include <memtune/compile/compile_pool.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/copy_ceiling.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/workload.hpp>
#include <memtune/device.hpp>
#include <memtune/model_evaluator.hpp>
#include <memtune/model_prior.hpp>
#include <memtune/targets.hpp>
#include <memtune/tuner.hpp>

#include "reference_run.hpp"
#include "search_loop.hpp"

#include <chrono>
#include <deque>
#include <random>

namespace memtune {
namespace {

constexpr std::size_t kDefaultDynamicSmemLimit = 48 * 1024; // above this a kernel must opt in

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
  return v.note.empty() ? std::string(buf) : std::string(buf) + "; " + v.note;
}

class CandidateRunner {
public:
  CandidateRunner(const KernelDescription& kernel, const Target& target, DescribedWorkload& workload,
                  std::uint64_t bytes_moved, Timer& timer, const search::Space& space)
      : kernel_(kernel), target_(target), workload_(workload), bytes_moved_(bytes_moved), timer_(timer),
        space_(space) {}

  Evaluation run(Pending& p, double ceiling_gbps) {
    Evaluation e;
    const std::optional<CompileResult> compiled_or_failed = take_compiled(p, target_, e);
    if (!compiled_or_failed) return e;
    const CompileResult& compiled = *compiled_or_failed;
    check_signature(kernel_, compiled);

    const cuda::DriverApi& cu = cuda::driver_api();
    try {
      cuda::Module module(compiled.cubin);
      CUfunction fn = module.function(compiled.lowered_name);
      // The loaded function is the ground truth for its resources.
      e.resources.registers = function_attribute(fn, CU_FUNC_ATTRIBUTE_NUM_REGS);
      e.resources.static_smem_bytes = static_cast<std::size_t>(function_attribute(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
      e.resources.stack_frame_bytes = static_cast<std::size_t>(function_attribute(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
      if (e.dynamic_smem_bytes > kDefaultDynamicSmemLimit)
        MEMTUNE_CU(cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         static_cast<int>(e.dynamic_smem_bytes)));
      // The driver's count is the truth; the calculator says what limits it.
      MEMTUNE_CU(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&e.driver_blocks_per_sm, fn, e.block_threads,
                                                                e.dynamic_smem_bytes));
      e.occupancy = model::compute_occupancy(target_, {e.block_threads, e.resources.registers,
                                                        e.resources.static_smem_bytes, e.dynamic_smem_bytes});
      if (e.driver_blocks_per_sm == 0)
        return fail(std::move(e), Status::exceeds_device_limits,
                    "no block fits on an SM" + (e.occupancy.cannot_launch.empty() ? "" : ": " + e.occupancy.cannot_launch));

      std::vector<void*> args;
      try {
        args = workload_.kernel_args(p.config);
        workload_.prepare(module.get(), p.config);
      } catch (const std::invalid_argument& err) {
        return fail(std::move(e), Status::launch_failed, err.what());
      }
      const LaunchSpec& l = p.launch;
      auto launch = [&](CUstream s) {
        MEMTUNE_CU(cu.cuLaunchKernel(fn, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                                     static_cast<unsigned>(l.dynamic_smem_bytes), s, args.data(), nullptr));
      };

      // Correctness first, on a poisoned output.
      workload_.poison(timer_.stream());
      try {
        launch(timer_.stream());
      } catch (const cuda::DriverError& err) {
        if (err.is_sticky()) throw;
        return fail(std::move(e), Status::launch_failed, err.what());
      }
      const Verification v = workload_.verify(timer_.stream());
      e.max_abs_error = v.max_abs_error;
      if (!v.ok) return fail(std::move(e), Status::wrong_result, describe_wrong(v));

      try {
        // An inout buffer is refilled before every sample, outside the timed region.
        std::function<void(CUstream)> refill;
        if (workload_.refills_before_launch()) refill = [&](CUstream s) { workload_.before_launch(s); };
        e.timing = timer_.time(launch, refill);
      } catch (const Timeout& t) {
        return fail(std::move(e), Status::timeout, t.what());
      }
      e.gbps = static_cast<double>(bytes_moved_) / e.timing->median_s / 1e9;
      e.fraction_of_ceiling = ceiling_gbps > 0 ? e.gbps / ceiling_gbps : 0.0;
      e.fraction_of_peak = target_.dram_bandwidth_gbs > 0 ? e.gbps / target_.dram_bandwidth_gbs : 0.0;
      return e;
    } catch (const cuda::DriverError& err) {
      if (err.is_sticky()) throw ContextLost{std::string("candidate ") + space_.format(p.config) + ": " + err.what()};
      return fail(std::move(e), Status::launch_failed, err.what());
    }
  }

private:
  static Evaluation fail(Evaluation e, Status s, std::string reason) {
    e.status = s;
    e.reason = std::move(reason);
    e.timing.reset();
    return e;
  }

  const KernelDescription& kernel_;
  const Target& target_;
  DescribedWorkload& workload_;
  std::uint64_t bytes_moved_;
  Timer& timer_;
  const search::Space& space_;
};

// The rationale's facts (conflict ways, sectors, bounds) come from the model.
// Only for the candidates a user sees: replaying every candidate's accesses
// would cost more than measuring it.
void explain_shown_candidates(const KernelDescription& kernel, const Problem& problem, const Target& target,
                              TuningResult& result) {
  constexpr std::size_t kShown = 10;
  if (!kernel.has_model()) return;
  model::TimeModelParams params;
  if (target.dram_bandwidth_gbs > 0 && result.ceiling && result.ceiling->gbps > 0)
    params.dram_efficiency = std::min(1.0, result.ceiling->gbps / target.dram_bandwidth_gbs);
  const auto order = result.ranking();
  for (std::size_t i = 0; i < order.size() && i < kShown; ++i) {
    Evaluation& e = result.evaluations[order[i]];
    try {
      explain_measured_candidate(e, kernel, problem, target, params);
    } catch (const std::exception&) {
      e.model.reset(); // a rationale without model facts, never a lost measurement
    }
  }
}

// Each baseline asked for, timed with the candidates' Timer (same L2 flush,
// warm-up, median and spread) on the workload's buffers, after a poisoned
// launch is verified against the reference. A baseline's failure is recorded,
// like a candidate's.
void time_baselines(const KernelDescription& kernel, const Problem& problem, const std::vector<std::string>& names,
                    DescribedWorkload& workload, Timer& timer, const cuda::Context& context, TuningResult& result) {
  for (const std::string& name : names) {
    BaselineResult b;
    b.name = name;
    try {
      context.make_current(); // libraries on the runtime API adopt the current context
      const BaselineContext buffers{problem, [&](const std::string& buffer) { return workload.buffer(buffer); }};
      std::unique_ptr<Baseline> baseline = kernel.hooks.baselines.at(name)(buffers);
      b.description = baseline->description();
      b.available = baseline->available();
      if (!b.available) {
        b.message = baseline->unavailable_reason();
      } else {
        workload.poison(timer.stream());
        baseline->launch(timer.stream());
        const Verification v = workload.verify(timer.stream());
        b.max_abs_error = v.max_abs_error;
        b.verified = v.ok;
        if (!v.ok) {
          b.message = "wrong result: " + describe_wrong(v);
        } else {
          b.timing = timer.time([&](CUstream s) { baseline->launch(s); });
          b.gbps = static_cast<double>(result.bytes_moved) / b.timing->median_s / 1e9;
        }
      }
    } catch (const cuda::DriverError& err) {
      if (err.is_sticky()) throw;
      b.verified = false;
      b.message = err.what();
    } catch (const std::invalid_argument&) {
      throw; // an unknown name is the caller's error
    } catch (const std::exception& err) {
      b.verified = false;
      b.message = err.what();
    }
    result.baselines.push_back(std::move(b));
  }
}

} // namespace

TuningResult tune(const KernelDescription& kernel, const Problem& given, const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  const Problem problem = kernel.complete(given);
  kernel.check_baseline_names(options.compare);
  if (options.transfer_from && options.strategy != "bayes")
    throw std::invalid_argument("a measured run uses --from only as the bayes search's prior mean (--strategy bayes)");
  if (!cuda::driver_available())
    throw DeviceRequired("measuring needs an NVIDIA GPU: " + cuda::driver_unavailable_reason());

  cuda::Context context(options.device);
  const Target target = with_catalogue_figures(local_target(options.device));

  TuningResult result = new_tuning_result(kernel, problem, target, options, /*measured=*/true);
  result.compiled_for_cc = target.compute_capability();
  result.compiler = "NVRTC " + nvrtc_version();

  std::optional<CompileCache> cache;
  if (options.use_cache) cache.emplace(options.cache_folder.value_or(CompileCache::default_folder()));
  CompilePool pool(cache ? &*cache : nullptr, options.compile_threads);

  DescribedWorkload workload(kernel, problem, target, options.seed);
  workload.upload({target.compute_capability(), cache ? &*cache : nullptr});

  Timer timer(target.l2_bytes, options.measure);
  // Every candidate is verified against the reference: without one, nothing is measured.
  if (auto why = run_reference(kernel, problem, target, workload, cache ? &*cache : nullptr, timer.stream())) {
    result.aborted = "no reference to verify candidates against: " + *why;
    result.wall_seconds = elapsed();
    return result;
  }
  measure_copies(timer, target.l2_bytes, result);

  CandidateRunner runner(kernel, target, workload, result.bytes_moved, timer, result.space);
  search::StrategyOptions strategy_options;
  if (options.strategy == "bayes") {
    result.search_prior = "none (--no-model-prior)";
    if (!kernel.has_model()) {
      result.search_prior = "none: " + kernel.name + " has no model (no access pattern), so bayes starts from a flat prior";
    } else if (options.transfer_from) {
      // An unusable source is the caller's error (TransferError); a space the
      // model cannot predict is searched without a prior, as below.
      const TransferSource source = load_transfer_source(*options.transfer_from, kernel, problem, load_targets());
      try {
        strategy_options.bayes.prior_mean = transfer_prior(kernel, problem, target, source, result.space);
        result.search_prior = "transferred from " + source.describe();
      } catch (const std::exception& err) {
        result.search_prior = std::string("none: the model cannot predict this kernel (") + err.what() + ")";
      }
    } else if (options.model_prior) {
      try {
        strategy_options.bayes.prior_mean = model_prior(kernel, problem, target, result.space);
        result.search_prior = "analytical model";
      } catch (const std::exception& err) {
        // A kernel the model cannot predict is searched without a prior, and the result says why.
        result.search_prior = std::string("none: the model cannot predict this kernel (") + err.what() + ")";
      }
    }
  }
  run_search_loop(kernel, problem, target, target.compute_capability(), options, pool, result,
                  [&](Pending& p) { return runner.run(p, result.ceiling->gbps); }, strategy_options);
  if (result.aborted.empty()) {
    try {
      time_baselines(kernel, problem, options.compare, workload, timer, context, result);
    } catch (const cuda::DriverError& err) {
      result.aborted = std::string("stopped while timing the baselines: ") + err.what();
    }
  }
  add_same_size_fractions(result);
  explain_shown_candidates(kernel, problem, target, result);
  result.wall_seconds = elapsed();
  return result;
}

} // namespace memtune
