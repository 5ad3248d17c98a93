#include <memtune/tune/search_loop.hpp>

#include "only_axes.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_signature.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/stop_rules.hpp>

#include <chrono>
#include <deque>
#include <memory>
#include <random>
#include <sstream>

namespace memtune {
namespace {

search::StopRules stop_rules(const TuneOptions& o) {
  search::StopRules rules;
  if (o.budget) rules.add(search::EvaluationBudget(o.budget));
  if (o.time_budget_s > 0) rules.add(search::WallTimeBudget(std::chrono::duration<double>(o.time_budget_s)));
  if (o.patience) rules.add(search::NoImprovement(o.patience));
  return rules;
}

} // namespace

void fix_axes(search::Space& space, const std::map<std::string, std::string>& only) {
  for (search::Constraint& c : only_constraints(space, only)) space.require(std::move(c));
}

Pending submit_candidate(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                         CompilePool& pool, search::Config config) {
  Pending p;
  p.config = std::move(config);
  try {
    p.launch = kernel.launch(p.config, problem, target);
  } catch (const std::invalid_argument& e) {
    p.launch_error = e.what();
    return p;
  }
  p.compiled = pool.submit(kernel.compile_request(p.launch, compile_cc));
  return p;
}

void check_signature(const KernelDescription& kernel, const CompileResult& compiled) {
  if (auto mismatch = signature_mismatch(kernel, compiled.lowered_name))
    throw DescriptionError(kernel.origin.empty() ? "description '" + kernel.name + "'" : kernel.origin, "arguments",
                           *mismatch);
}

TuningResult new_tuning_result(const KernelDescription& kernel, const Problem& problem, const Target& target,
                               const TuneOptions& options, bool measured) {
  TuningResult result;
  result.template_name = kernel.name;
  result.kernel_fingerprint = kernel.fingerprint();
  result.problem = problem;
  result.problem_parameters = kernel.problem;
  result.device = fingerprint(target);
  result.target_name = target.name;
  result.measured = measured;
  result.strategy = options.strategy;
  result.objective = options.objective;
  result.energy_measured = measured && options.measure.energy.enabled;
  result.space = kernel.space(problem, target);
  fix_axes(result.space, options.only);
  const search::ValidCount valid = result.space.count_valid(); // counted, never listed
  result.configs_pruned = result.space.cross_product_size() - valid.value;
  if (options.shard) {
    result.space.restrict_to(*options.shard);
    result.shard = "shard " + options.shard->to_string() + " (" + options.shard_source + "): " +
                   result.space.count_valid().describe() + " of the " + valid.describe() + " valid configurations";
  }
  result.bytes_moved = kernel.bytes_moved(problem);
  result.peak_dram_gbs = target.dram_bandwidth_gbs;
  if (options.on_start) options.on_start(result);
  return result;
}

std::optional<CompileResult> take_compiled(Pending& p, const Target& target, Evaluation& e) {
  e.config = p.config;
  if (!p.launch_error.empty()) {
    e.status = Status::launch_failed;
    e.reason = p.launch_error;
    return std::nullopt;
  }
  e.block_threads = static_cast<int>(p.launch.block.count());
  e.dynamic_smem_bytes = p.launch.dynamic_smem_bytes;
  CompileResult compiled;
  try {
    compiled = p.compiled.get();
  } catch (const std::exception& ex) {
    e.status = Status::compile_failed;
    e.reason = ex.what();
    return std::nullopt;
  }
  e.compile_seconds = compiled.seconds;
  e.compile_cached = compiled.from_cache;
  e.compiler = compiled.compiler;
  e.compile_warnings = compiled.warnings;
  if (!compiled.ok) {
    e.status = Status::compile_failed;
    e.reason = summarize_log(compiled.log);
    return std::nullopt;
  }
  e.resources = compiled.resources;
  if (auto why = resource_limit_violation(e, target)) {
    e.status = Status::exceeds_device_limits;
    e.reason = *why;
    return std::nullopt;
  }
  return compiled;
}

std::optional<std::string> resource_limit_violation(const Evaluation& e, const Target& target) {
  if (e.block_threads > target.max_threads_per_block)
    return std::to_string(e.block_threads) + " threads per block exceed the " + std::to_string(target.max_threads_per_block) +
           " the GPU allows";
  if (static_cast<long long>(e.resources.registers) * e.block_threads > target.max_regs_per_block)
    return std::to_string(e.resources.registers) + " registers x " + std::to_string(e.block_threads) +
           " threads exceed " + std::to_string(target.max_regs_per_block) + " registers per block";
  const std::size_t smem = e.resources.static_smem_bytes + e.dynamic_smem_bytes;
  if (smem > target.smem_per_block_optin)
    return std::to_string(smem) + " bytes of shared memory exceed " + std::to_string(target.smem_per_block_optin) +
           " per block";
  return std::nullopt;
}

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

void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
                     const search::StrategyOptions& strategy_options, ResumableRun* resumable) {
  std::mt19937_64 engine(options.seed);
  search::StopRules stop = stop_rules(options);
  stop.start();
  // The time budget also bounds a strategy's own look for valid configs (one
  // next() may walk billions of configs of a sparse shard between two checks
  // of the stop rules).
  if (options.time_budget_s > 0)
    result.space.set_deadline(std::chrono::steady_clock::now() +
                              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(options.time_budget_s)));
  struct ClearDeadline {
    search::Space& space;
    ~ClearDeadline() { space.set_deadline(std::nullopt); }
  } clear_deadline{result.space};
  const auto out_of_time = [&](const search::DeadlinePassed&) {
    std::ostringstream why;
    why << "wall-time budget of " << options.time_budget_s << " s reached while looking for valid configurations"
        << (result.space.shard() ? " of the shard" : "");
    result.stop_reason = why.str();
  };
  std::unique_ptr<search::Strategy> strategy;
  try {
    strategy = search::make_strategy(options.strategy, result.space, engine, strategy_options);
  } catch (const search::DeadlinePassed& e) {
    out_of_time(e);
    return;
  }
  search::SearchProgress progress;

  std::deque<Pending> pending;
  std::size_t in_flight = 0;
  std::size_t proposed = 0;
  bool exhausted = false;
  bool stopping = false; // a stop rule fired or the GPU was lost: start nothing new
  const std::size_t capacity = std::max<std::size_t>(evaluator.capacity(), 1);
  // Keep the pool busy but bounded: a few candidates per compile thread, and
  // at least one per GPU; never more outstanding than the strategy allows.
  const std::size_t ahead = std::max<std::size_t>(
      1, std::min<std::size_t>(strategy->lookahead(), std::max<std::size_t>(4 * std::max(1U, pool.threads()), capacity)));
  // Proposals run ahead of evaluations; the evaluation budget also caps them
  // so nothing is compiled that will not be measured.
  auto may_propose = [&] { return (!options.budget || proposed < options.budget) && !stopping; };

  // An ended evaluation: journaled first (a kill now loses nothing), then observed.
  auto record = [&](Evaluation e, bool evaluated) {
    if (evaluated) {
      if (resumable) resumable->journal.append(e);
      if (e.compile_cached) ++result.compile_cache_hits;
    }
    // The strategy minimises one number: the run's objective (seconds by default).
    search::Trial trial{e.config, objective_value(e, options.objective), to_string(e.status), e.reason};
    strategy->observe(trial);
    ++progress.evaluations;
    if (!trial.ok()) ++progress.failures;
    else if (!progress.best_time_s || *trial.time_s < *progress.best_time_s) progress.best_time_s = trial.time_s;
    result.evaluations.push_back(std::move(e));
    if (options.on_evaluation) options.on_evaluation(result.evaluations.back(), result.evaluations.size());
    if (stopping) return; // what was in flight when the search stopped is kept, nothing more
    if (auto why = stop.check(progress)) {
      result.stop_reason = *why;
      stopping = true; // candidates compiled ahead are dropped unmeasured
    }
  };
  auto lose_gpu = [&](const ContextLost& lost) {
    result.aborted = "stopped early: the GPU context became unusable (" + lost.what +
                     "); results up to this candidate are kept";
    stopping = true;
  };

  while (true) {
    while (!exhausted && pending.size() + in_flight < ahead && may_propose()) {
      std::optional<search::Config> next;
      try {
        next = strategy->next();
      } catch (const search::DeadlinePassed& e) {
        if (result.stop_reason.empty()) out_of_time(e);
        stopping = true;
        break;
      }
      if (!next) {
        exhausted = true;
        break;
      }
      ++proposed;
      if (resumable) {
        if (std::optional<Evaluation> replayed = resumable->journal.take(*next)) {
          Pending p;
          p.config = std::move(*next);
          p.replayed = std::move(replayed);
          pending.push_back(std::move(p));
          continue;
        }
      }
      pending.push_back(submit_candidate(kernel, problem, target, compile_cc, pool, std::move(*next)));
    }
    if (!stopping && in_flight < capacity && !pending.empty()) {
      Pending p = std::move(pending.front());
      pending.pop_front();
      if (p.replayed) {
        Evaluation e = std::move(*p.replayed);
        if (resumable->restore) resumable->restore(e);
        record(std::move(e), false);
        continue;
      }
      std::optional<Evaluation> ended;
      try {
        ended = evaluator.start(p);
      } catch (const ContextLost& lost) {
        lose_gpu(lost);
        continue;
      }
      if (ended) record(std::move(*ended), true);
      else ++in_flight;
      continue;
    }
    if (in_flight == 0) break;
    --in_flight;
    try {
      record(evaluator.finish(), true);
    } catch (const ContextLost& lost) {
      lose_gpu(lost);
    }
  }
}

namespace {

class ImmediateEvaluator : public CandidateEvaluator {
public:
  explicit ImmediateEvaluator(const std::function<Evaluation(Pending&)>& evaluate) : evaluate_(evaluate) {}
  std::optional<Evaluation> start(Pending& p) override { return evaluate_(p); }
  Evaluation finish() override { throw std::logic_error("an immediate evaluation has nothing in flight"); }

private:
  const std::function<Evaluation(Pending&)>& evaluate_;
};

} // namespace

void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result,
                     const std::function<Evaluation(Pending&)>& evaluate,
                     const search::StrategyOptions& strategy_options, ResumableRun* resumable) {
  ImmediateEvaluator evaluator(evaluate);
  run_search_loop(kernel, problem, target, compile_cc, options, pool, result, evaluator, strategy_options, resumable);
}

} // namespace memtune
