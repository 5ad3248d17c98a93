#pragma once
// The search benchmark's step-cost table (--step-cost): CPU milliseconds per
// bayes proposal at n observations, on recordings and on a synthetic 10^5 space.
#include <memtune/search/space.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/run_search.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memtune::bench {

// A smooth 10^5-configuration space (5 ordinal axes of 10 values, no
// constraints) with one narrow basin and a ridge of near-misses: enough
// configurations for a Bayesian run of 2,000 observations, the step-cost
// table's last column, with a cost a recording cannot reach.
search::Space step_cost_space();
search::Trial step_cost_objective(const search::Config& c);

struct StepCost {
  std::vector<std::optional<double>> ms;  // per requested n; nullopt when the space ran out first
  std::vector<double> mean_ms;            // per requested n: the mean of all proposals up to n (refits amortised)
  double cpu_s = 0.0;
  std::size_t proposals = 0;
};

// One sequential bayes run (seed 1) of up to max(observations) proposals:
// CPU milliseconds per proposal around each n (the median of the 9 proposals
// made at n - 4 .. n + 4 observations; refits included when they fall there)
// and the CPU seconds of the whole run, the evaluations excluded.
StepCost measure_step_cost(const search::Space& space, const search::Objective& objective,
                           const std::vector<std::size_t>& at, const search::StrategyOptions& options);

void print_step_cost_header(const std::vector<std::size_t>& at);
void print_step_cost_row(const std::string& name, std::size_t configs, const std::vector<std::size_t>& at,
                         const StepCost& cost);

} // namespace memtune::bench
