#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/compile/nvrtc_library.hpp>
#include <memtune/measure/memory_fit.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/tune/model_prior.hpp>
#include <memtune/tune/transfer.hpp>
#include <memtune/tune/tuner.hpp>

#include "bounded_grid.hpp"
#include <memtune/tune/search_loop.hpp>

#include <chrono>

namespace memtune {

TuningResult tune_modeled(const KernelDescription& kernel, const Problem& given, const Target& target,
                          const TuneOptions& options) {
  if (needs_energy(options.objective))
    throw std::invalid_argument(std::string("--objective ") + to_string(options.objective) +
                                " needs a measured run: energy is measured on the local GPU, never modeled");
  if (options.transfer_from) return tune_transferred(kernel, given, target, options);
  const auto start = std::chrono::steady_clock::now();
  const Problem problem = kernel.complete(given);
  kernel.check_baseline_names(options.compare);
  check_fits_memory(kernel, problem, target);

  TuningResult result = new_tuning_result(kernel, problem, target, options, /*measured=*/false);
  const CompilerChoice compiler = choose_compiler(target.compute_capability(), options.nvrtc_kepler);
  result.compiled_for_cc = compiler.compute_capability;
  result.compiler = compiler.compiler;
  result.compiler_note = compiler.note;
  result.time_modeled = kernel.has_model();

  std::optional<CompileCache> cache;
  if (options.use_cache) cache.emplace(options.cache_folder.value_or(CompileCache::default_folder()));
  CompilePool pool(cache ? &*cache : nullptr, options.compile_threads, compiler.nvrtc_library);
  std::optional<Journal> journal;
  if (options.journal.file) {
    journal.emplace(*options.journal.file, journal_header(result, options, options.measure), result.space, options.journal.must_exist);
    result.journal = journal->describe();
    result.resumed = journal->resumed();
  }

  const auto evaluate = [&](Pending& p) {
    Evaluation e;
    const std::optional<CompileResult> compiled = take_compiled(p, target, e);
    if (!compiled) return e;
    check_signature(kernel, *compiled);
    if (!result.time_modeled) {
      predict_occupancy(e, target);
      return e;
    }
    predict_candidate(e, kernel, problem, target, result.bytes_moved);
    if (e.model) e.model->compiled_for_cc = result.compiled_for_cc;
    return e;
  };
  // A journaled candidate gets its prediction again (cheap next to
  // compiling: its kernel is in the compile cache).
  std::optional<ResumableRun> resumable;
  if (journal)
    resumable.emplace(ResumableRun{*journal, [&](Evaluation& e) {
                                     if (e.status == Status::compile_failed) return;
                                     if (!result.time_modeled) predict_occupancy(e, target);
                                     else if (e.ok()) predict_candidate(e, kernel, problem, target, result.bytes_moved);
                                     if (e.model) e.model->compiled_for_cc = result.compiled_for_cc;
                                   }});
  ResumableRun* resume = resumable ? &*resumable : nullptr;
  if (!result.time_modeled) {
    // Without predicted times no strategy can learn or rank: the candidates
    // are compiled in grid order (within the budget) for their registers.
    TuneOptions grid = options;
    if (options.strategy != "grid")
      result.strategy = "grid (" + options.strategy + " needs predicted times; " + kernel.name +
                        " has no access pattern, so its time is not modeled)";
    grid.strategy = "grid";
    run_search_loop(kernel, problem, target, result.compiled_for_cc, grid, pool, result, evaluate, {}, resume);
  } else {
    // A whole grid with no stop rule is where compiling every candidate costs
    // most and the top k is all that is shown: bound it (bounded_grid.hpp).
    const bool whole_grid = options.strategy == "grid" && options.exact_top > 0 && options.budget == 0 &&
                            options.time_budget_s <= 0 && options.patience == 0 && !journal;
    // A sweep's later sizes start bayes from the sizes done (TuneOptions::warm_start).
    search::StrategyOptions strategy_options;
    if (options.strategy == "bayes" && options.warm_start) {
      try {
        strategy_options.bayes.prior_mean = transfer_prior(kernel, problem, target, *options.warm_start, result.space);
        result.search_prior = "warm start from " + options.warm_start->describe();
      } catch (const std::exception& err) {
        result.search_prior = std::string("none: the warm start predicts nothing of this space (") + err.what() + ")";
      }
    }
    if (whole_grid)
      run_bounded_grid(kernel, problem, target, result.compiled_for_cc, options, pool, result, evaluate);
    else
      run_search_loop(kernel, problem, target, result.compiled_for_cc, options, pool, result, evaluate,
                      strategy_options, resume);
  }
  if (journal) result.journal = journal->describe();
  // Baselines are libraries timed on the local GPU: a modeled run has none.
  for (const std::string& name : options.compare)
    result.baselines.push_back({name, {}, false, false,
                                "baselines are timed on the local GPU; target \"" + target.name + "\" is modeled",
                                std::nullopt, 0.0, 0.0});
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace memtune
