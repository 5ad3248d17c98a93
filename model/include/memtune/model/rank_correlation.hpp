#pragma once
// Rank correlation between two paired samples, e.g. the model's predicted
// times against measured times of the same configurations.
#include <cstddef>
#include <vector>

namespace memtune {

// Average ranks, 1-based (ties share the mean rank): {3.0, 1.0, 3.0} -> {2.5, 1, 2.5}.
[[nodiscard]] std::vector<double> average_ranks(const std::vector<double>& values);

// Spearman's rho: the Pearson correlation of the average ranks. Precondition:
// a.size() == b.size() >= 2; NaN when either sample is constant.
[[nodiscard]] double spearman(const std::vector<double>& a, const std::vector<double>& b);

// How often a prediction orders the pairs a measurement tells apart: among
// the pairs (i, j) whose measured times differ by more than `min_gap` of
// the faster one (0.03: 3 %, beyond run-to-run noise), the fraction that
// `predicted` orders the same way (a predicted tie counts half). Spearman
// over a space whose configurations mostly lie within the noise of each
// other (aos_soa read: 69 of 95 within 2.5 % of the best) measures the
// noise; this says whether the real differences are ranked right.
//
//   ordered_pairs({1.0, 2.0, 1.01}, {5, 9, 4}, 0.03) -> {2 pairs, 1.0 correct}
struct PairOrder {
  std::size_t pairs = 0;  // pairs more than min_gap apart in `measured`
  double fraction = 0;    // of them ordered as measured; NaN when pairs == 0
};
// Precondition: measured.size() == predicted.size(), positive measured times.
[[nodiscard]] PairOrder ordered_pairs(const std::vector<double>& measured, const std::vector<double>& predicted,
                                      double min_gap);

} // namespace memtune
