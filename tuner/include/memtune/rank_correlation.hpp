#pragma once
// Rank correlation between two paired samples, e.g. the model's predicted
// times against measured times of the same configurations.
#include <vector>

namespace memtune {

// Average ranks, 1-based (ties share the mean rank): {3.0, 1.0, 3.0} -> {2.5, 1, 2.5}.
[[nodiscard]] std::vector<double> average_ranks(const std::vector<double>& values);

// Spearman's rho: the Pearson correlation of the average ranks. Precondition:
// a.size() == b.size() >= 2; NaN when either sample is constant.
[[nodiscard]] double spearman(const std::vector<double>& a, const std::vector<double>& b);

} // namespace memtune
