#include "metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace memtune::bench {

std::optional<std::size_t> evaluations_to_reach(const std::vector<search::Trial>& trials, double optimum_s,
                                                double factor) {
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].ok() && *trials[i].time_s <= optimum_s * factor) return i + 1;
  return std::nullopt;
}

std::optional<double> best_ratio_after(const std::vector<search::Trial>& trials, double optimum_s,
                                       std::size_t evaluations) {
  std::optional<double> best;
  for (std::size_t i = 0; i < std::min(evaluations, trials.size()); ++i)
    if (trials[i].ok() && (!best || *trials[i].time_s < *best)) best = trials[i].time_s;
  if (!best) return std::nullopt;
  return *best / optimum_s;
}

Summary summarize(const std::vector<std::optional<double>>& values) {
  std::vector<double> v;
  Summary s;
  for (const auto& x : values) {
    if (x) v.push_back(*x);
    else ++s.missing, v.push_back(std::numeric_limits<double>::infinity());
  }
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    if (std::isinf(v[hi]) || v[lo] == v[hi]) return v[lo] == v[hi] ? v[lo] : v[hi];
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  s.q1 = quantile(0.25), s.median = quantile(0.5), s.q3 = quantile(0.75);
  return s;
}

} // namespace memtune::bench
