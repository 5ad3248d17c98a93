#include <memtune/search/acquisition.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace memtune::search {

double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi); }

// erfc keeps precision in the far lower tail, where 1 + erf would cancel.
double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double expected_improvement(double mean, double sd, double best, double xi) {
  const double gain = best - xi - mean;
  if (!(sd > 0.0)) return std::max(0.0, gain);
  const double z = gain / sd;
  return std::max(0.0, gain * normal_cdf(z) + sd * normal_pdf(z));
}

double probability_of_improvement(double mean, double sd, double best, double xi) {
  const double gain = best - xi - mean;
  if (!(sd > 0.0)) return gain > 0.0 ? 1.0 : 0.0;
  return normal_cdf(gain / sd);
}

double lower_confidence_bound(double mean, double sd, double kappa) { return mean - kappa * sd; }

} // namespace memtune::search
