#include <memtune/search/portfolio.hpp>

#include <memtune/search/rng.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace memtune::search {

HedgePortfolio::HedgePortfolio(std::size_t arms, double eta) : gains_(arms, 0.0), eta_(eta) {
  if (arms == 0) throw std::invalid_argument("hedge: need at least one arm");
  if (!(eta > 0.0)) throw std::invalid_argument("hedge: eta must be positive");
}

std::vector<double> HedgePortfolio::probabilities() const {
  // Shift by the largest gain so the exponentials cannot overflow.
  const double top = *std::max_element(gains_.begin(), gains_.end());
  std::vector<double> p(gains_.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < gains_.size(); ++i) sum += p[i] = std::exp(eta_ * (gains_[i] - top));
  for (double& x : p) x /= sum;
  return p;
}

std::size_t HedgePortfolio::choose(std::mt19937_64& engine) const {
  const std::vector<double> p = probabilities();
  double u = uniform01(engine);
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    if (u < p[i]) return i;
    u -= p[i];
  }
  return p.size() - 1;
}

void HedgePortfolio::reward(const std::vector<double>& rewards) {
  if (rewards.size() != gains_.size()) throw std::invalid_argument("hedge: need one reward per arm");
  for (std::size_t i = 0; i < gains_.size(); ++i) gains_[i] += rewards[i];
}

} // namespace memtune::search
