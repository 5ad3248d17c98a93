#include <memtune/tune/search_loop.hpp>

#include "only_axes.hpp"

#include <memtune/compile/kernel_resources.hpp>
#include <memtune/description/argument_values.hpp>
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_signature.hpp>
#include <memtune/model/occupancy.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/first_then.hpp>
#include <memtune/search/run_search.hpp>
#include <memtune/search/stop_rules.hpp>

#include <algorithm>
#include <chrono>
#include <map>
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
  if (description_detail::block_limit_violation(p.launch.block)) return p; // nothing to compile: take_compiled says why
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
  result.model_figures = target.figures_note;
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
  if (auto why = description_detail::block_limit_violation(p.launch.block)) { // before its threads are counted in an int
    e.status = Status::exceeds_device_limits;
    e.reason = *why;
    return std::nullopt;
  }
  e.block_threads = static_cast<int>(p.launch.block.count());
  e.grid_blocks = p.launch.grid.count();
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
  if (auto why = cooperative_grid_violation(p.launch, e, target)) {
    e.status = Status::exceeds_device_limits;
    e.reason = *why;
    return std::nullopt;
  }
  return compiled;
}

std::optional<std::string> cooperative_grid_violation(const LaunchSpec& launch, const Evaluation& e,
                                                      const Target& target) {
  if (!launch.cooperative) return std::nullopt;
  const model::Occupancy o = model::compute_occupancy(
      target, {e.block_threads, e.resources.registers, e.resources.static_smem_bytes, e.dynamic_smem_bytes});
  const std::uint64_t resident = static_cast<std::uint64_t>(std::max(0, o.blocks_per_sm)) *
                                 static_cast<std::uint64_t>(std::max(0, target.sm_count));
  if (launch.grid.count() <= resident) return std::nullopt;
  return "a cooperative launch of " + std::to_string(launch.grid.count()) + " blocks, but only " +
         std::to_string(resident) + " fit on the GPU at once (" + std::to_string(o.blocks_per_sm) + " an SM x " +
         std::to_string(target.sm_count) + " SMs): grid.sync() needs every block resident";
}

std::optional<std::string> resource_limit_violation(const Evaluation& e, const Target& target) {
  if (e.block_threads > target.max_threads_per_block)
    return std::to_string(e.block_threads) + " threads per block exceed the " + std::to_string(target.max_threads_per_block) +
           " the GPU allows";
  // The kernel's own __launch_bounds__, read from its CUBIN: what the driver
  // would refuse at launch, known without a GPU (modeled runs).
  if (auto why = block_bound_violation(e.block_threads, e.resources.max_threads_per_block, e.resources.registers))
    return why;
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
    if (line.find("error") != std::string::npos || line.rfind("memtune: ", 0) == 0) {
      out += (out.empty() ? "" : " | ") + line;
      ++lines;
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  if (!out.empty()) return out;
  // No error line: the end of the log, where a compiler says why it stopped
  // (its head is ptxas' resource report of the kernels that did compile).
  constexpr std::size_t kTail = 300;
  return log.size() <= kTail ? log : "..." + log.substr(log.size() - kTail);
}

namespace {

// The tuner's side of search::run_search: a proposal is answered from the
// journal or submitted to the compile pool as soon as it is proposed; it is
// evaluated by the CandidateEvaluator; each ended Evaluation is journaled
// (a kill then loses nothing) before the loop lets the strategy observe it,
// and appended to the result after. A lost GPU context ends the search.
class CandidateLoop final : public search::Evaluator {
public:
  CandidateLoop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
                ResumableRun* resumable)
      : kernel_(kernel), problem_(problem), target_(target), compile_cc_(compile_cc), options_(options), pool_(pool),
        result_(result), evaluator_(evaluator), resumable_(resumable) {}

  [[nodiscard]] std::size_t capacity() const override { return evaluator_.capacity(); }

  void proposed(std::uint64_t ticket, const search::Config& config) override {
    if (resumable_) {
      if (std::optional<Evaluation> replayed = resumable_->journal.take(config)) {
        Pending p;
        p.config = config;
        p.replayed = std::move(replayed);
        waiting_.emplace(ticket, std::move(p));
        return;
      }
    }
    waiting_.emplace(ticket, submit_candidate(kernel_, problem_, target_, compile_cc_, pool_, config));
  }

  std::optional<search::Trial> start(std::uint64_t ticket, const search::Config& config) override {
    Pending p = take(waiting_, ticket);
    if (p.replayed) {
      Evaluation e = std::move(*p.replayed);
      if (resumable_->restore) resumable_->restore(e);
      return ended(ticket, std::move(e));
    }
    std::optional<Evaluation> e;
    try {
      e = evaluator_.start(p);
    } catch (const ContextLost& lost) {
      throw search::EvaluatorLost(lost.what);
    }
    if (!e) {
      in_flight_.emplace(ticket, config);
      return std::nullopt;
    }
    return evaluated(ticket, std::move(*e));
  }

  std::pair<std::uint64_t, search::Trial> finish() override {
    Evaluation e;
    try {
      e = evaluator_.finish();
    } catch (const ContextLost& lost) {
      throw search::EvaluatorLost(lost.what);
    }
    // Configs are unique among the proposals, so the one that ended names its ticket.
    const auto it = std::find_if(in_flight_.begin(), in_flight_.end(),
                                 [&](const auto& flight) { return flight.second == e.config; });
    if (it == in_flight_.end()) throw std::logic_error("run_search_loop: an evaluation ended that was not started");
    const std::uint64_t ticket = it->first;
    in_flight_.erase(it);
    return {ticket, evaluated(ticket, std::move(e))};
  }

  // The loop observed the trial of `ticket`: its Evaluation joins the result.
  void observed(std::uint64_t ticket) {
    result_.evaluations.push_back(take(ended_, ticket));
    if (options_.on_evaluation) options_.on_evaluation(result_.evaluations.back(), result_.evaluations.size());
  }

private:
  template <class T>
  static T take(std::map<std::uint64_t, T>& from, std::uint64_t ticket) {
    const auto it = from.find(ticket);
    if (it == from.end()) throw std::logic_error("run_search_loop: ticket " + std::to_string(ticket) + " unknown");
    T value = std::move(it->second);
    from.erase(it);
    return value;
  }

  // Journal replays are neither journaled again nor counted as compiles.
  search::Trial evaluated(std::uint64_t ticket, Evaluation e) {
    if (resumable_) resumable_->journal.append(e);
    if (e.compile_cached) ++result_.compile_cache_hits;
    return ended(ticket, std::move(e));
  }

  // The strategy minimises one number: the run's objective (seconds by default).
  search::Trial ended(std::uint64_t ticket, Evaluation e) {
    search::Trial trial{e.config, objective_value(e, options_.objective), to_string(e.status), e.reason};
    ended_.emplace(ticket, std::move(e));
    return trial;
  }

  const KernelDescription& kernel_;
  const Problem& problem_;
  const Target& target_;
  int compile_cc_;
  const TuneOptions& options_;
  CompilePool& pool_;
  TuningResult& result_;
  CandidateEvaluator& evaluator_;
  ResumableRun* resumable_;
  std::map<std::uint64_t, Pending> waiting_;            // proposed: compiling, or replayed from the journal
  std::map<std::uint64_t, search::Config> in_flight_;   // started on a GPU
  std::map<std::uint64_t, Evaluation> ended_;           // ended, until the strategy has observed it
};

} // namespace

namespace {

// The loop with the stop rules and deadline of `options` and the strategy
// `make` returns, made once the wall-time budget counts.
void run_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
              const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
              const std::function<search::Strategy&()>& make, ResumableRun* resumable) {
  search::StopRules stop = stop_rules(options);
  stop.start(); // the wall-time budget counts the strategy's making too
  // The time budget also bounds a strategy's own look for valid configs (one
  // next() may walk billions of configs of a sparse shard between two checks
  // of the stop rules).
  if (options.time_budget_s > 0) {
    // A budget past what the clock counts (1e10 s is 1e19 ns) sets no
    // deadline rather than one overflowed into the past.
    const auto now = std::chrono::steady_clock::now();
    const std::chrono::duration<double> budget(options.time_budget_s);
    if (budget < std::chrono::steady_clock::time_point::max() - now)
      result.space.set_deadline(now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget));
  }
  struct ClearDeadline {
    search::Space& space;
    ~ClearDeadline() { space.set_deadline(std::nullopt); }
  } clear_deadline{result.space};
  std::ostringstream out_of_time;
  out_of_time << "wall-time budget of " << options.time_budget_s
              << " s reached while looking for valid configurations" << (result.space.shard() ? " of the shard" : "");
  search::Strategy* strategy = nullptr;
  try {
    strategy = &make();
  } catch (const search::DeadlinePassed&) {
    result.stop_reason = out_of_time.str();
    return;
  }

  CandidateLoop candidates(kernel, problem, target, compile_cc, options, pool, result, evaluator, resumable);
  search::LoopOptions loop;
  // Keep the pool busy but bounded: a few candidates per compile thread (the
  // loop adds at least one per GPU and keeps to the strategy's lookahead).
  loop.ahead = 4 * std::max(1U, pool.threads());
  loop.stop_started = true;
  loop.deadline_reason = out_of_time.str();
  loop.on_trial = [&](std::uint64_t ticket, const search::Trial&) { candidates.observed(ticket); };
  const search::SearchResult searched = search::run_search(*strategy, candidates, std::move(stop), loop);
  if (!searched.stop_reason.empty()) result.stop_reason = searched.stop_reason;
  if (!searched.lost.empty())
    result.aborted = "stopped early: the GPU context became unusable (" + searched.lost +
                     "); results up to this candidate are kept";
}

} // namespace

void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
                     const search::StrategyOptions& strategy_options, ResumableRun* resumable) {
  std::mt19937_64 engine(options.seed);
  std::unique_ptr<search::Strategy> strategy;
  const auto make = [&]() -> search::Strategy& {
    strategy = search::make_strategy(options.strategy, result.space, engine, strategy_options);
    if (options.strategy == "bayes" && !options.first.empty()) {
      // Only bayes: it learns from what it did not propose and never proposes
      // it again; grid and random would measure it twice.
      std::vector<search::Config> first;
      // Another size's best that is a duplicate here (the fdtd's zfill that
      // gives one z-chunk) is its same kernel's configuration here.
      for (const nlohmann::json& saved : options.first)
        if (auto c = result.space.same_kernel_of_saved(saved)) first.push_back(std::move(*c)); // FirstThen skips one already proposed
      if (!first.empty()) strategy = std::make_unique<search::FirstThen>(std::move(first), std::move(strategy));
    }
    return *strategy;
  };
  run_loop(kernel, problem, target, compile_cc, options, pool, result, evaluator, make, resumable);
}

void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
                     search::Strategy& strategy, ResumableRun* resumable) {
  run_loop(kernel, problem, target, compile_cc, options, pool, result, evaluator,
           [&]() -> search::Strategy& { return strategy; }, resumable);
}

void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result,
                     const std::function<Evaluation(Pending&)>& evaluate,
                     const search::StrategyOptions& strategy_options, ResumableRun* resumable) {
  ImmediateEvaluator evaluator(evaluate);
  run_search_loop(kernel, problem, target, compile_cc, options, pool, result, evaluator, strategy_options, resumable);
}

} // namespace memtune
