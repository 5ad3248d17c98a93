#include "bounded_grid.hpp"

#include <memtune/io/parallel_for.hpp>
#include <memtune/tune/model_evaluator.hpp>

#include <algorithm>

namespace memtune {

Evaluation model_lower_bound(const KernelDescription& kernel, const Problem& problem, const Target& target,
                             const search::Config& config, std::uint64_t bytes_moved) {
  model::TimeModelParams params;
  params.loaded_latency_gain = 0;
  params.whole_waves = false;
  params.knee_exponent = 0; // the max of the bounds: never above the knee's p-norm
  // No registers, no static shared memory: the most blocks per SM it can get.
  return predict_with_resources(kernel, problem, target, config, {}, bytes_moved, params, CacheShare::one_block);
}

Evaluation model_estimate(const KernelDescription& kernel, const Problem& problem, const Target& target,
                          const search::Config& config, std::uint64_t bytes_moved) {
  return predict_with_resources(kernel, problem, target, config, {}, bytes_moved, {}, CacheShare::resident_warps);
}

std::vector<Evaluation> predict_each(const std::vector<search::Config>& configs,
                                     const std::function<Evaluation(const search::Config&)>& predict) {
  std::vector<Evaluation> out(configs.size());
  // 64 a chunk: each takes up to milliseconds, so a chunk is worth a thread.
  parallel_for(static_cast<std::int64_t>(configs.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      out[static_cast<std::size_t>(i)] = predict(configs[static_cast<std::size_t>(i)]);
  }, 64);
  return out;
}

void run_bounded_grid(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                      const TuneOptions& options, CompilePool& pool, TuningResult& result,
                      const std::function<Evaluation(Pending&)>& evaluate) {
  std::vector<std::pair<search::Config, double>> bounded;
  for (Evaluation& b : predict_each(result.space.enumerate(), [&](const search::Config& c) {
         return model_lower_bound(kernel, problem, target, c, result.bytes_moved);
       })) {
    if (!b.timing) {
      // No block fits even without registers, or no launch: nothing to compile.
      result.evaluations.push_back(std::move(b));
      continue;
    }
    bounded.emplace_back(std::move(b.config), b.timing->median_s);
  }
  // Two proposals per compile thread: enough to keep the pool busy, few
  // enough that little is compiled past the point where the cut-off closes.
  BoundOrder strategy(std::move(bounded), options.exact_top, 2 * std::max(1U, pool.threads()));
  ImmediateEvaluator evaluator(evaluate);
  run_search_loop(kernel, problem, target, compile_cc, options, pool, result, evaluator, strategy);
  result.exact_top = options.exact_top;
  result.configs_not_compiled = strategy.not_proposed();
  result.bound_violated = strategy.bound_violated();
}

} // namespace memtune
