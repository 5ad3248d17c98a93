#include <memtune/search/hyperfit.hpp>

#include <memtune/search/gp.hpp>
#include <memtune/search/nelder_mead.hpp>
#include <memtune/search/rng.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

namespace memtune::search {

HyperfitResult fit_hyperparameters(const Points& x, const Eigen::VectorXd& y, const MixedKernel& start,
                                   std::mt19937_64& engine, const HyperfitOptions& options) {
  if (x.size() < 2 || y.size() != x.size()) throw std::invalid_argument("hyperfit: need >= 2 points with targets");
  const Eigen::Index no = x.ordinal.cols(), nc = x.categorical.cols(), d = no + nc + 2;
  const HyperBounds& b = options.bounds;
  Eigen::VectorXd lower(d), upper(d);
  lower.head(no).setConstant(std::log(b.min_length_scale));
  upper.head(no).setConstant(std::log(b.max_length_scale));
  lower.segment(no, nc).setConstant(std::log(b.min_mismatch_weight));
  upper.segment(no, nc).setConstant(std::log(b.max_mismatch_weight));
  lower[no + nc] = std::log(b.min_signal_variance), upper[no + nc] = std::log(b.max_signal_variance);
  lower[no + nc + 1] = std::log(b.min_noise_variance), upper[no + nc + 1] = std::log(b.max_noise_variance);

  const Eigen::VectorXd centre = MixedKernel::defaults(no, nc).to_log_params();
  auto negative_lml = [&](const Eigen::VectorXd& theta) {
    try {
      double penalty = 0.0;
      if (options.log_prior_sd > 0.0)
        for (Eigen::Index i = 0; i < no + nc; ++i) {
          const double z = (theta[i] - centre[i]) / options.log_prior_sd;
          penalty += 0.5 * z * z;
        }
      return -GaussianProcess(MixedKernel::from_log_params(theta, no, nc), x, y).log_marginal_likelihood() + penalty;
    } catch (const std::runtime_error&) {
      return std::numeric_limits<double>::infinity();
    }
  };

  std::vector<Eigen::VectorXd> starts{start.to_log_params(), MixedKernel::defaults(no, nc).to_log_params()};
  for (int s = 0; s < options.random_starts; ++s) {
    Eigen::VectorXd theta(d);
    for (Eigen::Index i = 0; i < d; ++i) theta[i] = lower[i] + uniform01(engine) * (upper[i] - lower[i]);
    starts.push_back(theta);
  }

  HyperfitResult best{start, -std::numeric_limits<double>::infinity()};
  for (const Eigen::VectorXd& theta0 : starts) {
    const NelderMeadResult r = nelder_mead_minimize(negative_lml, theta0, lower, upper, /*initial_step=*/1.0,
                                                    options.evaluations_per_start);
    if (-r.value > best.log_marginal_likelihood)
      best = {MixedKernel::from_log_params(r.x, no, nc), -r.value};
  }
  return best;
}

} // namespace memtune::search
