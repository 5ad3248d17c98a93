#include <memtune/io/parallel_for.hpp>
#include <memtune/templates/filter.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>

namespace memtune::templates {

std::vector<double> filter_reference(std::span<const float> in, std::span<const float> taps) {
  const auto n = static_cast<std::int64_t>(in.size());
  const auto t = static_cast<std::int64_t>(taps.size());
  const std::int64_t radius = t / 2;
  std::vector<double> out(in.size());
  parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      double acc = 0.0;
      for (std::int64_t k = 0; k < t; ++k) {
        const std::int64_t j = i - radius + k;
        if (j >= 0 && j < n) acc += static_cast<double>(taps[static_cast<std::size_t>(k)]) * in[static_cast<std::size_t>(j)];
      }
      out[static_cast<std::size_t>(i)] = acc;
    }
  });
  return out;
}

std::vector<float> random_filter_taps(int taps, std::uint64_t seed) {
  std::vector<float> c(static_cast<std::size_t>(taps));
  std::uint64_t state = seed ^ 0x9e3779b97f4a7c15ULL;
  double sum = 0.0;
  for (auto& x : c) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    // In [0.1, 1.1): never zero, so every tap contributes.
    x = 0.1F + static_cast<float>((state >> 40) * (1.0 / 16777216.0));
    if ((state >> 20) & 1U) x = -x;
    sum += std::fabs(x);
  }
  for (auto& x : c) x = static_cast<float>(x / sum);
  return c;
}

double filter_tolerance(std::span<const float> taps) {
  // float FMAs in any order: each of the taps terms adds at most one rounding
  // of the running sum, bounded by sum|c| * max|x| = sum|c| here (|x| <= 1).
  double sum_abs = 0.0;
  for (float c : taps) sum_abs += std::fabs(c);
  return 2.0 * static_cast<double>(taps.size()) * FLT_EPSILON * sum_abs + 1e-30;
}

} // namespace memtune::templates
