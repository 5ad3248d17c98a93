#include "bounded_grid.hpp"

#include <memtune/tune/model_evaluator.hpp>

#include <algorithm>
#include <deque>
#include <numeric>

namespace memtune {

namespace {

Evaluation without_registers(const KernelDescription& kernel, const Problem& problem, const Target& target,
                             const search::Config& config, std::uint64_t bytes_moved,
                             const model::TimeModelParams& params, CacheShare share) {
  Evaluation e;
  e.config = config;
  LaunchSpec launch;
  try {
    launch = kernel.launch(config, problem, target);
  } catch (const std::invalid_argument& err) {
    e.status = Status::launch_failed;
    e.reason = err.what();
    return e;
  }
  e.block_threads = static_cast<int>(launch.block.count());
  e.dynamic_smem_bytes = launch.dynamic_smem_bytes;
  e.resources = {}; // no registers, no static shared memory: the most blocks per SM it can get
  predict_candidate(e, kernel, problem, target, bytes_moved, params, share);
  return e;
}

} // namespace

Evaluation model_lower_bound(const KernelDescription& kernel, const Problem& problem, const Target& target,
                             const search::Config& config, std::uint64_t bytes_moved) {
  model::TimeModelParams params;
  params.loaded_latency_gain = 0;
  return without_registers(kernel, problem, target, config, bytes_moved, params, CacheShare::one_block);
}

Evaluation model_estimate(const KernelDescription& kernel, const Problem& problem, const Target& target,
                          const search::Config& config, std::uint64_t bytes_moved) {
  return without_registers(kernel, problem, target, config, bytes_moved, {}, CacheShare::resident_warps);
}

void TopKCutoff::add(std::optional<double> predicted, double bound) {
  if (!predicted) return;
  // A relative slack for rounding: the bound and the prediction run the same
  // arithmetic on different occupancies.
  if (*predicted < bound * (1 - 1e-9)) violated_ = true;
  best_.insert(*predicted);
  if (best_.size() > k_) best_.erase(std::prev(best_.end()));
}

void run_bounded_grid(const KernelDescription& kernel, const Problem& problem, const Target& target, int compile_cc,
                      const TuneOptions& options, CompilePool& pool, TuningResult& result,
                      const std::function<Evaluation(Pending&)>& evaluate) {
  const std::vector<search::Config> configs = result.space.enumerate();
  std::vector<double> bound(configs.size(), 0.0);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    Evaluation b = model_lower_bound(kernel, problem, target, configs[i], result.bytes_moved);
    if (!b.timing) {
      // No block fits even without registers, or no launch: nothing to compile.
      result.evaluations.push_back(std::move(b));
      continue;
    }
    bound[i] = b.timing->median_s;
    order.push_back(i);
  }
  // Most promising first; grid order among equal bounds keeps runs reproducible.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return bound[a] < bound[b]; });

  TopKCutoff cutoff(options.exact_top);
  struct InFlight {
    Pending pending;
    double bound;
  };
  std::deque<InFlight> in_flight;
  const std::size_t ahead = 2 * std::max(1U, pool.threads());
  std::size_t next = 0;
  while (true) {
    while (next < order.size() && in_flight.size() < ahead && cutoff.worth_compiling(bound[order[next]])) {
      in_flight.push_back(
          {submit_candidate(kernel, problem, target, compile_cc, pool, configs[order[next]]), bound[order[next]]});
      ++next;
    }
    if (in_flight.empty()) break;
    InFlight f = std::move(in_flight.front());
    in_flight.pop_front();
    Evaluation e = evaluate(f.pending);
    if (e.compile_cached) ++result.compile_cache_hits;
    cutoff.add(e.ok() && e.timing ? std::optional(e.timing->median_s) : std::nullopt, f.bound);
    result.evaluations.push_back(std::move(e));
    if (options.on_evaluation) options.on_evaluation(result.evaluations.back(), result.evaluations.size());
  }
  result.exact_top = options.exact_top;
  result.configs_not_compiled = order.size() - next;
  result.bound_violated = cutoff.violated();
}

} // namespace memtune
