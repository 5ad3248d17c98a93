#pragma once
// Search-efficiency metrics over one run's trials (in evaluation order),
// against the optimum of a fully recorded space.
#include <memtune/search/strategy.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace memtune::bench {

// 1-based number of evaluations until the best time so far is within
// `factor` of the optimum (1.05 = within 5%); nullopt if never.
[[nodiscard]] std::optional<std::size_t> evaluations_to_reach(const std::vector<search::Trial>& trials,
                                                              double optimum_s, double factor);

// Best time [s] among the first `evaluations` trials, over the optimum (>= 1);
// nullopt if none of them succeeded.
[[nodiscard]] std::optional<double> best_ratio_after(const std::vector<search::Trial>& trials, double optimum_s,
                                                     std::size_t evaluations);

struct Summary {
  double median = 0.0, q1 = 0.0, q3 = 0.0; // quartiles, linear interpolation
  std::size_t missing = 0;                 // runs with no value (never reached / nothing succeeded)
};
// Quartiles of the present values; missing ones count as +infinity, so a
// median is infinite when more than half the runs never got there.
[[nodiscard]] Summary summarize(const std::vector<std::optional<double>>& values);

} // namespace memtune::bench
