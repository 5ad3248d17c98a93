#include <memtune/compile/compile_pool.hpp>
#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/measure/copy_ceiling.hpp>
#include <memtune/measure/energy_meter.hpp>
#include <memtune/measure/memory_fit.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/tune/model_prior.hpp>
#include <memtune/measure/target_resolver.hpp>
#include <memtune/tune/tuner.hpp>

#include "candidate_executor.hpp"
#include <memtune/isolate/protocol.hpp>
#include <memtune/measure/reference_run.hpp>
#include "gpu_evaluator.hpp"
#include <memtune/tune/search_loop.hpp>

#include <chrono>

namespace memtune {
namespace {

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

// The copies a journal's setup line keeps (those of the run it resumes).
isolation::CopyMeasurements journaled_copies(const nlohmann::json& setup) {
  isolation::CopyMeasurements c;
  c.ceiling = isolation::ceiling_from_json(setup.at("ceiling"));
  if (const auto same = setup.find("same_size_copy"); same != setup.end() && !same->is_null())
    c.same_size_copy = isolation::ceiling_from_json(*same);
  return c;
}

// The journal's setup line: what a resumed run reads (the copies, the
// reference's time) and, for people, where the set-up went.
nlohmann::json journal_setup_line(const isolation::CopyMeasurements& c, std::optional<double> reference_time_s,
                                  const SetupTimes& times) {
  return {{"ceiling", isolation::ceiling_json(*c.ceiling)},
          {"same_size_copy", c.same_size_copy ? isolation::ceiling_json(*c.same_size_copy) : nlohmann::json()},
          {"reference_time_s", reference_time_s ? nlohmann::json(*reference_time_s) : nlohmann::json()},
          {"times", setup_times_json(times)}};
}

} // namespace

TuningResult tune(const KernelDescription& kernel, const Problem& given, const TuneOptions& given_options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  const Problem problem = kernel.complete(given);
  kernel.check_baseline_names(given_options.compare);
  if (given_options.transfer_from && given_options.strategy != "bayes")
    throw std::invalid_argument("a measured run uses --from only as the bayes search's prior mean (--strategy bayes)");
  TuneOptions options = given_options;
  if (options.isolation.candidate_timeout_s > 0) options.measure.timeout_seconds = options.isolation.candidate_timeout_s;
  if (needs_energy(options.objective)) options.measure.energy.enabled = true;
  // No NVML here means none in the worker either: say so before anything runs.
  if (options.measure.energy.enabled) {
    try {
      (void)nvml::NvmlLibrary::open();
    } catch (const nvml::NvmlUnavailable& e) {
      throw EnergyUnavailable(std::string("energy cannot be measured on this machine: ") + e.what());
    }
  }

  std::optional<CompileCache> cache;
  if (options.use_cache) cache.emplace(options.cache_folder.value_or(CompileCache::default_folder()));
  const CompileCache* cache_ptr = cache ? &*cache : nullptr;

  // The GPU: a worker process (or this process), which says what GPU it is.
  const std::unique_ptr<isolation::CandidateExecutor> gpu = isolation::start_executor(kernel, problem, options, options.seed, cache_ptr);
  // The model's figures (caches, latencies) from the catalogue entry of this GPU.
  const Target target = with_catalogue_figures(gpu->target());
  check_fits_memory(kernel, problem, target);

  TuningResult result = new_tuning_result(kernel, problem, target, options, /*measured=*/true);
  result.compiled_for_cc = target.compute_capability();
  result.compiler = "NVRTC " + nvrtc_version();
  result.isolation = gpu->isolation();
  result.devices = gpu->devices();
  std::optional<Journal> journal;
  if (options.journal.file) {
    journal.emplace(*options.journal.file, journal_header(result, options, options.measure), result.space, options.journal.must_exist);
    result.journal = journal->describe();
    result.resumed = journal->resumed();
  }
  CompilePool pool(cache_ptr, options.compile_threads);

  // Every candidate is verified against the reference: without one, nothing is measured.
  const PlannedReference reference = plan_reference(kernel, problem, target, cache_ptr);
  if (reference.error) {
    result.aborted = "no reference to verify candidates against: " + *reference.error;
    result.wall_seconds = elapsed();
    return result;
  }
  // A resumed run keeps its copy ceiling, so "% of ceiling" stays one run's ratio.
  std::optional<nlohmann::json> journaled_setup = journal ? journal->setup() : std::nullopt;
  const CopySizes copies = copy_sizes(result.bytes_moved, target.l2_bytes);
  std::optional<search::Config> expected_for;
  if (kernel.verify.mode == VerifySpec::Mode::callback) expected_for = kernel.default_config(problem, target);
  isolation::ExecutorSetup setup;
  try {
    setup = gpu->setup(reference.plans, journaled_setup ? 0 : copies.ceiling_bytes,
                       journaled_setup ? 0 : copies.same_size_bytes, expected_for);
  } catch (const ContextLost& lost) {
    result.aborted = "no reference to verify candidates against: " + lost.what;
    result.wall_seconds = elapsed();
    return result;
  }
  SetupTimes& times = result.setup_times.emplace();
  times.workers = setup.workers;
  if (setup.reference_error) {
    result.aborted = "no reference to verify candidates against: " + *setup.reference_error;
    result.wall_seconds = elapsed();
    return result;
  }
  if (journaled_setup && !journaled_setup->at("reference_time_s").is_null())
    setup.reference_time_s = journaled_setup->at("reference_time_s").get<double>();

  // The watchdog's yardsticks: the reference, the copy ceiling, the best so far.
  WatchdogYardsticks yardsticks;
  yardsticks.reference_s = setup.reference_time_s;
  yardsticks.host_work_s = 2 * setup.expected_seconds; // another configuration's expected values may be computed
  // The copies: the resumed run's from its journal, measured by setup(), or
  // (several GPUs) measured on the first while the others run candidates.
  const auto take_copies = [&](const isolation::CopyMeasurements& c) {
    result.ceiling = c.ceiling;
    result.same_size_copy = c.same_size_copy;
    times.ceiling_s = c.ceiling_s; // 0 for a resumed run's: not measured again
    times.same_size_copy_s = c.same_size_copy_s;
    if (result.ceiling && result.ceiling->gbps > 0)
      yardsticks.copy_s = static_cast<double>(result.bytes_moved) / (result.ceiling->gbps * 1e9);
    if (journal && !journaled_setup && c.ceiling) journal->append_setup(journal_setup_line(c, setup.reference_time_s, times));
  };
  if (journaled_setup) take_copies(journaled_copies(*journaled_setup));
  else if (setup.copies) take_copies(*setup.copies);

  search::StrategyOptions strategy_options;
  // A batch per round that keeps every GPU busy (1 on one GPU: the sequential search).
  strategy_options.bayes.batch_size = gpu->capacity();
  if (options.strategy == "bayes") {
    result.search_prior = "none (--no-model-prior)";
    if (needs_energy(options.objective)) {
      // The model and a transfer predict seconds; a prior in seconds would mislead a search over joules.
      result.search_prior = std::string("none: the model predicts time, and the objective is ") +
                            to_string(options.objective);
    } else if (options.warm_start) {
      try {
        strategy_options.bayes.prior_mean = transfer_prior(kernel, problem, target, *options.warm_start, result.space);
        result.search_prior = "warm start from " + options.warm_start->describe();
      } catch (const std::exception& err) {
        result.search_prior = std::string("none: the warm start predicts nothing of this space (") + err.what() + ")";
      }
    } else if (options.transfer_from) {
      // An unusable source is the caller's error (TransferError); a space the
      // model cannot predict is searched without a prior, as below. A kernel
      // without a model takes the source's times at one ratio (its ranking).
      const TransferSource source = load_transfer_source(*options.transfer_from, kernel, problem, load_targets());
      try {
        strategy_options.bayes.prior_mean = transfer_prior(kernel, problem, target, source, result.space);
        result.search_prior = "transferred from " + source.describe() +
                              (kernel.has_model() ? "" : " (no access pattern: its ranking, one ratio for all)");
      } catch (const std::exception& err) {
        result.search_prior = std::string("none: the transfer predicts nothing of this space (") + err.what() + ")";
      }
    } else if (!kernel.has_model()) {
      result.search_prior = "none: " + kernel.name + " has no model (no access pattern), so bayes starts from a flat prior";
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

  GpuEvaluator evaluator(kernel, target, options, result, yardsticks, *gpu, take_copies);
  std::optional<ResumableRun> resumable;
  if (journal)
    resumable.emplace(ResumableRun{*journal, [&](Evaluation& e) {
                                     isolation::recompute_occupancy(e, target);
                                     if (e.ok() && (!yardsticks.best_s || e.timing->median_s < *yardsticks.best_s))
                                       yardsticks.best_s = e.timing->median_s;
                                   }});
  run_search_loop(kernel, problem, target, target.compute_capability(), options, pool, result, evaluator,
                  strategy_options, resumable ? &*resumable : nullptr);
  try {
    if (const auto copies = gpu->await_copies()) take_copies(*copies); // a search that ended before them
  } catch (const ContextLost& lost) {
    if (result.aborted.empty()) result.aborted = "stopped: " + lost.what;
  }
  if (journal) result.journal = journal->describe();
  if (const auto sent = evaluator.first_sent()) times.first_candidate_s = std::chrono::duration<double>(*sent - start).count();
  if (result.aborted.empty()) {
    for (const std::string& name : options.compare) {
      try {
        result.baselines.push_back(gpu->baseline(name, result.bytes_moved));
      } catch (const std::exception& err) {
        result.aborted = std::string("stopped while timing the baselines: ") + err.what();
        break;
      }
    }
  }
  if (auto why = energy_unresolved(result.evaluations, result.objective)) result.objective_refused = *why;
  add_copy_fractions(result); // candidates that ended before the copies did have none yet
  explain_shown_candidates(kernel, problem, target, result);
  result.worker_restarts = gpu->restarts();
  result.wall_seconds = elapsed();
  return result;
}

std::vector<TuningResult> tune_each_model(const KernelDescription& kernel, const Problem& problem,
                                          const TuneOptions& options) {
  try {
    return {tune(kernel, problem, options)};
  } catch (const MixedDevices& mixed) {
    // Each model on its own GPUs, one after another: a ranking holds one model.
    std::vector<TuningResult> results;
    for (const DeviceGroup& group : mixed.groups()) {
      TuneOptions one = options;
      one.devices = DeviceList{false, group.ordinals};
      if (options.journal.file) one.journal.file = path_for_model(*options.journal.file, group.model);
      results.push_back(tune(kernel, problem, one));
    }
    return results;
  }
}

} // namespace memtune
