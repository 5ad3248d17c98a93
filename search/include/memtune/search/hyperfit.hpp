#pragma once
// Fits a MixedKernel's hyperparameters to data by maximising the GP's log
// marginal likelihood: bounded Nelder-Mead on log-parameters from several
// starts (the given kernel, the neutral defaults, and random points in the
// box), keeping the best.
//
// The bounds assume ordinal coordinates in [0, 1] and standardised targets
// (zero mean, unit variance): a length scale below 0.05 would let the fit
// memorise single points, and above 20 an axis is simply irrelevant.
#include <memtune/search/encoding.hpp>
#include <memtune/search/kernels.hpp>

#include <Eigen/Core>

#include <random>

namespace memtune::search {

struct HyperBounds {
  double min_length_scale = 0.05, max_length_scale = 20.0;
  double min_mismatch_weight = 1e-3, max_mismatch_weight = 20.0;
  double min_signal_variance = 0.05, max_signal_variance = 20.0;
  double min_noise_variance = 1e-6, max_noise_variance = 0.5;
};

struct HyperfitOptions {
  int random_starts = 2;        // in addition to the given kernel and the defaults
  int evaluations_per_start = 250;
  HyperBounds bounds;
  // > 0: maximise the posterior instead of the likelihood, with a normal
  // prior of this standard deviation on the log of every length scale and
  // mismatch weight, centred on the neutral defaults (kernels.hpp). Few
  // points fit many hyperparameters loosely; the prior keeps an axis the data
  // says little about near the defaults instead of at a bound. 0: likelihood.
  double log_prior_sd = 0.0;
};

struct HyperfitResult {
  MixedKernel kernel;
  double log_marginal_likelihood = 0.0;
};

// Preconditions: x.size() == y.size() >= 2; start matches the axes of x.
// Random starts draw from `engine` (through uniform01), so a seed fixes the fit.
[[nodiscard]] HyperfitResult fit_hyperparameters(const Points& x, const Eigen::VectorXd& y, const MixedKernel& start,
                                                 std::mt19937_64& engine, const HyperfitOptions& options = {});

} // namespace memtune::search
