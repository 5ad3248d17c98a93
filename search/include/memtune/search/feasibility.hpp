#pragma once
// Probability that a config runs at all (compiles, fits the device, gives the
// right answer), learnt from the trials so far.
//
// Failed trials have no time. Fitting them as huge times would wreck the
// regression's length scales and mean; instead the search multiplies expected
// improvement by P(feasible).
//
// The model is a second Gaussian process, regressed on the outcomes
// (1 = ran, 0 = failed) minus their smoothed rate p0 = (successes + 1) / (n + 2),
// and p(x) = clamp(p0 + mean(x), floor, 1). This "least-squares
// classification" approximation of a GP classifier has no latent-variable
// iterations; its hyperparameters come from the same marginal-likelihood fit
// as the regression (fit_kernel), so per-axis length scales learn which axes
// decide feasibility: a resource limit is usually a sharp boundary along one
// or two axes, which an isotropic nearest-neighbour vote misses in 5
// dimensions. Far from any trial p -> p0; next to failures p -> floor.
#include <memtune/search/encoding.hpp>
#include <memtune/search/hyperfit.hpp>
#include <memtune/search/kernels.hpp>

#include <memtune/search/gp.hpp>

#include <optional>
#include <random>
#include <vector>

namespace memtune::search {

class FeasibilityModel {
public:
  // Preconditions: ok.size() == observed.size(); kernel matches the axes.
  // floor: the lowest probability reported, so that no region is ruled out
  // for good by a model that can be wrong.
  FeasibilityModel(MixedKernel kernel, Points observed, std::vector<bool> ok, double floor = 1e-3);

  // P(feasible) of each point, in [floor, 1].
  [[nodiscard]] std::vector<double> probability(const Points& at) const;
  // p0, the smoothed overall success rate.
  [[nodiscard]] double prior() const { return prior_; }
  // The same of any outcomes: (successes + 1) / (outcomes + 2).
  [[nodiscard]] static double success_prior(const std::vector<bool>& ok);

  // Hyperparameters for the outcome regression by maximum marginal
  // likelihood. Precondition: observed.size() >= 2.
  [[nodiscard]] static MixedKernel fit_kernel(const Points& observed, const std::vector<bool>& ok,
                                              const MixedKernel& start, std::mt19937_64& engine,
                                              const HyperfitOptions& options = {});

private:
  std::optional<GaussianProcess> gp_; // on outcome - p0; empty without observations
  double prior_ = 0.5;
  double floor_ = 1e-3;
};

} // namespace memtune::search
