#include <memtune/compile/compile_pool.hpp>
#include <memtune/copy_ceiling.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/device.hpp>
#include <memtune/device_verifier.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/stop_rules.hpp>
#include <memtune/tuner.hpp>

#include <chrono>
#include <deque>
#include <random>

namespace memtune {
namespace {

constexpr std::size_t kDefaultDynamicSmemLimit = 48 * 1024; // above this a kernel must opt in

// The first lines of a compiler log that carry errors, for the reason column.
std::string summarize_log(const std::string& log) {
  std::string out;
  std::size_t pos = 0;
  int lines = 0;
  while (pos < log.size() && lines < 3) {
    const std::size_t end = log.find('\n', pos);
    const std::string line = log.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (line.find("error") != std::string::npos) {
      out += (out.empty() ? "" : " | ") + line;
      ++lines;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out.empty() ? log.substr(0, 300) : out;
}

struct Pending {
  search::Config config;
  LaunchSpec launch;
  std::future<CompileResult> compiled;
};

int function_attribute(CUfunction fn, CUfunction_attribute attribute) {
  int value = 0;
  MEMTUNE_CU(cuda::driver_api().cuFuncGetAttribute(&value, attribute, fn));
  return value;
}

search::StopRules stop_rules(const TuneOptions& o) {
  search::StopRules rules;
  if (o.budget) rules.add(search::EvaluationBudget(o.budget));
  if (o.time_budget_s > 0) rules.add(search::WallTimeBudget(std::chrono::duration<double>(o.time_budget_s)));
  if (o.patience) rules.add(search::NoImprovement(o.patience));
  return rules;
}

// Thrown when the context is unusable (sticky error): the run must stop.
struct ContextLost {
  std::string what;
};

class CandidateRunner {
public:
  CandidateRunner(const Target& target, Workload& workload, std::uint64_t bytes_moved, Timer& timer,
                  const search::Space& space)
      : target_(target), workload_(workload), bytes_moved_(bytes_moved), timer_(timer), space_(space) {}

  Evaluation run(Pending& p, double ceiling_gbps) {
    Evaluation e;
    e.config = p.config;
    e.block_threads = static_cast<int>(p.launch.block.count());
    e.dynamic_smem_bytes = p.launch.dynamic_smem_bytes;

    CompileResult compiled;
    try {
      compiled = p.compiled.get();
    } catch (const std::exception& ex) {
      return fail(std::move(e), Status::compile_failed, ex.what());
    }
    e.compile_seconds = compiled.seconds;
    e.compile_cached = compiled.from_cache;
    if (!compiled.ok) return fail(std::move(e), Status::compile_failed, summarize_log(compiled.log));
    e.resources = compiled.resources;

    if (static_cast<long long>(e.resources.registers) * e.block_threads > target_.max_regs_per_block)
      return fail(std::move(e), Status::exceeds_device_limits,
                  std::to_string(e.resources.registers) + " registers x " + std::to_string(e.block_threads) +
                      " threads exceed " + std::to_string(target_.max_regs_per_block) + " registers per block");
    const std::size_t smem = e.resources.static_smem_bytes + e.dynamic_smem_bytes;
    if (smem > target_.smem_per_block_optin)
      return fail(std::move(e), Status::exceeds_device_limits,
                  std::to_string(smem) + " bytes of shared memory exceed " +
                      std::to_string(target_.smem_per_block_optin) + " per block");

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

      workload_.prepare(module.get());
      std::vector<void*> args = workload_.kernel_args(p.config);
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
      if (!v.ok) {
        char buf[200];
        std::snprintf(buf, sizeof buf, "%lld of the outputs wrong, first at index %lld; max error %.3g > tolerance %.3g",
                      static_cast<long long>(v.bad_count), static_cast<long long>(v.first_bad), v.max_abs_error,
                      v.tolerance);
        return fail(std::move(e), Status::wrong_result, buf);
      }

      try {
        e.timing = timer_.time(launch);
      } catch (const Timeout& t) {
        return fail(std::move(e), Status::timeout, t.what());
      }
      e.gbps = static_cast<double>(bytes_moved_) / e.timing->median_s / 1e9;
      e.fraction_of_ceiling = ceiling_gbps > 0 ? e.gbps / ceiling_gbps : 0.0;
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

  const Target& target_;
  Workload& workload_;
  std::uint64_t bytes_moved_;
  Timer& timer_;
  const search::Space& space_;
};

} // namespace

TuningResult tune(const KernelTemplate& kernel, const Problem& given, const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  const Problem problem = complete_problem(kernel.problem_parameters(), given);
  if (!cuda::driver_available())
    throw DeviceRequired("measuring needs an NVIDIA GPU: " + cuda::driver_unavailable_reason() +
                         ".");

  cuda::Context context(options.device);
  const Target target = local_target(options.device);

  TuningResult result;
  result.template_name = kernel.name();
  result.problem = problem;
  result.device = fingerprint(target);
  result.target_name = target.name;
  result.measured = true;
  result.strategy = options.strategy;
  result.space = kernel.space(problem, target);
  result.configs_pruned = result.space.cross_product_size() - result.space.enumerate().size();

  std::mt19937_64 engine(options.seed);
  auto strategy = search::make_strategy(options.strategy, result.space, engine);
  search::StopRules stop = stop_rules(options);
  stop.start();
  search::SearchProgress progress;

  std::optional<CompileCache> cache;
  if (options.use_cache) cache.emplace(options.cache_folder.value_or(CompileCache::default_folder()));
  CompilePool pool(cache ? &*cache : nullptr, options.compile_threads);

  auto workload = kernel.make_workload(problem, options.seed);
  workload->upload({target.compute_capability(), cache ? &*cache : nullptr});
  result.bytes_moved = kernel.bytes_moved(problem);

  Timer timer(target.l2_bytes, options.measure);
  // Copy as many bytes as the kernel reads, but never less than 2x L2 so the
  // copy streams from DRAM like the candidates do.
  result.ceiling = measure_copy_ceiling(timer, std::max<std::size_t>(result.bytes_moved / 2, 2 * target.l2_bytes));

  CandidateRunner runner(target, *workload, result.bytes_moved, timer, result.space);
  std::deque<Pending> pending;
  std::size_t proposed = 0;
  bool exhausted = false;
  // Keep the pool busy but bounded: a few candidates per compile thread.
  const std::size_t ahead = std::min<std::size_t>(strategy->lookahead(), 4 * std::max(1U, pool.threads()));
  // Proposals run ahead of evaluations; the evaluation budget also caps them
  // so nothing is compiled that will not be measured.
  auto may_propose = [&] { return (!options.budget || proposed < options.budget) && result.stop_reason.empty(); };

  while (true) {
    while (!exhausted && pending.size() < std::max<std::size_t>(ahead, 1) && may_propose()) {
      std::optional<search::Config> next = strategy->next();
      if (!next) {
        exhausted = true;
        break;
      }
      LaunchSpec launch = kernel.launch(*next, problem);
      auto future = pool.submit(compile_request(kernel, launch, target.compute_capability()));
      pending.push_back({std::move(*next), std::move(launch), std::move(future)});
      ++proposed;
    }
    if (pending.empty()) break;

    Pending p = std::move(pending.front());
    pending.pop_front();
    Evaluation e;
    try {
      e = runner.run(p, result.ceiling->gbps);
    } catch (const ContextLost& lost) {
      result.aborted = "stopped early: the GPU context became unusable (" + lost.what +
                       "); results up to this candidate are kept";
      break;
    }
    if (e.compile_cached) ++result.compile_cache_hits;
    search::Trial trial{e.config, e.timing ? std::optional(e.timing->median_s) : std::nullopt, to_string(e.status),
                        e.reason};
    strategy->observe(trial);
    ++progress.evaluations;
    if (!trial.ok()) ++progress.failures;
    else if (!progress.best_time_s || *trial.time_s < *progress.best_time_s) progress.best_time_s = trial.time_s;
    result.evaluations.push_back(std::move(e));
    if (options.on_evaluation) options.on_evaluation(result.evaluations.back(), result.evaluations.size());
    if (auto why = stop.check(progress)) {
      result.stop_reason = *why;
      break; // candidates compiled ahead are dropped unmeasured
    }
  }
  result.wall_seconds = elapsed();
  return result;
}

} // namespace memtune
