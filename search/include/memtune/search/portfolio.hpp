#pragma once
// GP-Hedge (Hoffman, Brochu & de Freitas, "Portfolio Allocation for Bayesian
// Optimization", UAI 2011): several acquisition functions each nominate a
// candidate; one nominee is drawn with probability proportional to
// exp(eta * gain); after the next model update every acquisition's gain grows
// by the reward of its own nominee (the search passes minus the updated
// posterior mean, in standardised units), so the acquisitions whose picks the
// model ends up liking are followed more often.
//
//   HedgePortfolio hedge(3);
//   std::size_t arm = hedge.choose(engine);   // which nominee to evaluate
//   ...
//   hedge.reward({r0, r1, r2});               // one reward per arm, after the refit
#include <cstddef>
#include <random>
#include <vector>

namespace memtune::search {

class HedgePortfolio {
public:
  // Preconditions: arms >= 1, eta > 0 (1 / standardised log-time unit).
  explicit HedgePortfolio(std::size_t arms, double eta = 1.0);

  // Draws an arm with probability softmax(eta * gains), through uniform01.
  [[nodiscard]] std::size_t choose(std::mt19937_64& engine) const;
  // Adds one reward per arm (std::invalid_argument on a size mismatch).
  void reward(const std::vector<double>& rewards);

  [[nodiscard]] std::vector<double> probabilities() const;
  [[nodiscard]] const std::vector<double>& gains() const { return gains_; }

private:
  std::vector<double> gains_;
  double eta_;
};

} // namespace memtune::search
