#include <memtune/search/output_warping.hpp>

#include <memtune/search/acquisition.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace memtune::search {

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal_quantile: p must lie in (0, 1)");
  // Bisection on the cdf: exact to rounding, and cheap at the sizes searched here.
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200 && hi - lo > 1e-14; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Eigen::VectorXd gaussian_copula(const Eigen::VectorXd& values) {
  const auto n = static_cast<std::size_t>(values.size());
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return values[static_cast<Eigen::Index>(a)] < values[static_cast<Eigen::Index>(b)];
  });
  Eigen::VectorXd out(values.size());
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first + 1;
    while (last < n && values[static_cast<Eigen::Index>(order[last])] == values[static_cast<Eigen::Index>(order[first])])
      ++last;
    const double rank = 0.5 * static_cast<double>(first + last - 1); // average of the tied ranks
    const double q = normal_quantile((rank + 0.5) / static_cast<double>(n));
    for (std::size_t k = first; k < last; ++k) out[static_cast<Eigen::Index>(order[k])] = q;
    first = last;
  }
  return out;
}

} // namespace memtune::search
