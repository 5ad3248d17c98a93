#pragma once
// The loop shared by measured and modeled tuning: a strategy proposes
// configurations, the pool compiles them ahead, an evaluator turns each into
// an Evaluation (several at once on several GPUs), the strategy learns from
// each as it ends, and the stop rules end the search.
#include <memtune/compile/compile_pool.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/tune/journal.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/tune/tuner.hpp>

#include <functional>
#include <optional>
#include <future>
#include <stdexcept>
#include <string>

namespace memtune {

struct Pending {
  search::Config config;
  LaunchSpec launch;
  std::future<CompileResult> compiled; // not valid when launch_error is set or the block is over CUDA's limits
  std::string launch_error;            // the description cannot launch this configuration (a zero grid, ...)
  std::optional<Evaluation> replayed;  // from the journal of the run resumed: nothing to compile or measure
};

// A run with a journal (journal.hpp): finished candidates are appended as
// they end; configurations the journal holds are answered from it.
struct ResumableRun {
  Journal& journal;
  // Recomputes what a journal line does not keep (occupancy, the model's facts).
  std::function<void(Evaluation&)> restore;
};

// A candidate for `config`: its launch, and its compile submitted to the pool.
Pending submit_candidate(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                         CompilePool& pool, search::Config config);

// Throws DescriptionError when the description's arguments do not match the
// compiled kernel's parameters (kernel_signature.hpp).
void check_signature(const KernelDescription& kernel, const CompileResult& compiled);

// Thrown by an evaluation when the GPU context is unusable (sticky error):
// the run stops, keeping what was evaluated.
struct ContextLost {
  std::string what;
};

// Starts a candidate's evaluation from its compile: fills the config, launch
// facts and resources into `e` and returns the compiled kernel; or records the
// failure (no launch, a block over CUDA's 1024 x 1024 x 64, compile error,
// resources over the target's limits) in `e` and returns nullopt.
std::optional<CompileResult> take_compiled(Pending& p, const Target& target, Evaluation& e);

// Why a compiled candidate cannot run on the target (threads, registers or
// shared memory per block over the limit); nullopt when it fits.
std::optional<std::string> resource_limit_violation(const Evaluation& e, const Target& target);
// A cooperative launch (LaunchSpec::cooperative) of more blocks than the GPU
// holds at once with these resources: the driver would refuse it
// (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE), known here without a GPU too.
std::optional<std::string> cooperative_grid_violation(const LaunchSpec& launch, const Evaluation& e,
                                                      const Target& target);

// The first lines of a compiler log that carry errors (or memtune's own
// word on the compile), else its end, for the reason column.
std::string summarize_log(const std::string& log);

// Restricts `space` to the given value of each named axis (TuneOptions::only).
void fix_axes(search::Space& space, const std::map<std::string, std::string>& only);

// A result with everything known before the search: problem, device, space,
// bytes, and what the constraints pruned.
TuningResult new_tuning_result(const KernelDescription& kernel, const Problem& problem, const Target& target,
                               const TuneOptions& options, bool measured);

// How the loop evaluates candidates: at once (the model, a candidate that
// failed before its launch), or started on a GPU and finished later, up to
// capacity() in flight.
class CandidateEvaluator {
public:
  virtual ~CandidateEvaluator() = default;
  // Evaluations in flight at once (one per GPU; 1 for the model).
  [[nodiscard]] virtual std::size_t capacity() const { return 1; }
  // Starts p's evaluation: returns it when it ended already, or nullopt when
  // it runs and finish() hands it over later. Throws ContextLost.
  virtual std::optional<Evaluation> start(Pending& p) = 0;
  // Waits for a started evaluation to end, whichever ends first.
  // Precondition: one is in flight. Throws ContextLost (that one is then lost).
  virtual Evaluation finish() = 0;
};

// Fills result.evaluations, compile_cache_hits, stop_reason and aborted.
// `strategy_options` reach search::make_strategy (e.g. bayes's prior mean).
// With `resumable`, each evaluation is journaled before the strategy sees it,
// and journaled configurations are replayed instead of evaluated.
//
// Evaluations end, are journaled, observed and appended in the order they
// end; with capacity 1 that is the order proposed. Proposals outstanding
// (compiling or in flight) never exceed the strategy's lookahead(), so bayes
// with batch_size = capacity keeps every GPU busy. When a stop rule fires or
// the GPU is lost, nothing new starts and what is in flight still ends and is
// kept.
void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
                     const search::StrategyOptions& strategy_options = {}, ResumableRun* resumable = nullptr);

// The same with a strategy the caller made (the modeled grid's bound order,
// tune/src/bound_order.hpp) in place of options.strategy's.
void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result, CandidateEvaluator& evaluator,
                     search::Strategy& strategy, ResumableRun* resumable = nullptr);

// An evaluation that ends at once (the model's): `evaluate` is called as
// each candidate starts.
class ImmediateEvaluator final : public CandidateEvaluator {
public:
  explicit ImmediateEvaluator(const std::function<Evaluation(Pending&)>& evaluate) : evaluate_(evaluate) {}
  std::optional<Evaluation> start(Pending& p) override { return evaluate_(p); }
  Evaluation finish() override { throw std::logic_error("an immediate evaluation has nothing in flight"); }

private:
  const std::function<Evaluation(Pending&)>& evaluate_;
};

// The same with an evaluation that ends at once (the model's).
void run_search_loop(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                     const TuneOptions& options, CompilePool& pool, TuningResult& result,
                     const std::function<Evaluation(Pending&)>& evaluate,
                     const search::StrategyOptions& strategy_options = {}, ResumableRun* resumable = nullptr);

} // namespace memtune
