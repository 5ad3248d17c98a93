#include <memtune/search/gp.hpp>

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace memtune::search {

GaussianProcess::GaussianProcess(MixedKernel kernel, Points x, Eigen::VectorXd y)
    : kernel_(std::move(kernel)), x_(std::move(x)) {
  const Eigen::Index n = x_.size();
  if (n < 1 || y.size() != n) throw std::invalid_argument("gaussian process: need as many targets as points, >= 1");
  if (!y.allFinite()) throw std::invalid_argument("gaussian process: targets must be finite");

  Eigen::MatrixXd k = kernel_.signal_variance * kernel_.correlation(x_, x_);
  k.diagonal().array() += kernel_.noise_variance;
  for (double jitter = 0.0;;) {
    Eigen::MatrixXd kj = k;
    kj.diagonal().array() += jitter;
    llt_.compute(kj);
    if (llt_.info() == Eigen::Success && llt_.matrixLLT().diagonal().minCoeff() > 0.0) {
      jitter_ = jitter;
      break;
    }
    jitter = jitter == 0.0 ? 1e-10 * kernel_.signal_variance : jitter * 10.0;
    if (jitter > 1e-2 * kernel_.signal_variance)
      throw std::runtime_error("gaussian process: covariance matrix is not positive definite even with jitter");
  }
  alpha_ = llt_.solve(y);
  const double log_det = 2.0 * llt_.matrixLLT().diagonal().array().log().sum();
  log_marginal_likelihood_ =
      -0.5 * y.dot(alpha_) - 0.5 * log_det - 0.5 * static_cast<double>(n) * std::log(2.0 * std::numbers::pi);
}

std::vector<Prediction> GaussianProcess::predict(const Points& at) const {
  const Eigen::MatrixXd ks = kernel_.signal_variance * kernel_.correlation(x_, at); // n x m
  const Eigen::VectorXd mean = ks.transpose() * alpha_;
  const Eigen::MatrixXd v = llt_.matrixL().solve(ks);
  const Eigen::VectorXd reduction = v.colwise().squaredNorm().transpose();
  std::vector<Prediction> out(static_cast<std::size_t>(at.size()));
  for (Eigen::Index j = 0; j < at.size(); ++j)
    out[static_cast<std::size_t>(j)] = {mean[j], std::max(0.0, kernel_.signal_variance - reduction[j])};
  return out;
}

} // namespace memtune::search
