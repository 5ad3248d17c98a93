#pragma once
// Gaussian-process regression with a fixed kernel.
//
// Zero prior mean: callers subtract their mean (a constant, or an analytical
// model's prediction) and standardise the targets before fitting.
//
//   GaussianProcess gp(kernel, x, y);        // factorises K + noise I once
//   Prediction p = gp.predict(candidates)[0];
//   double lml = gp.log_marginal_likelihood();
//
// Numerics: K + (noise + jitter) I is Cholesky-factorised; when that fails
// (near-duplicate points with tiny noise) the jitter escalates from 1e-10 to
// 1e-2 times the signal variance, in steps of 10, before giving up.
#include <memtune/search/encoding.hpp>
#include <memtune/search/kernels.hpp>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <vector>

namespace memtune::search {

struct Prediction {
  double mean = 0.0;
  double variance = 0.0; // of the latent function (observation noise excluded); >= 0
};

class GaussianProcess {
public:
  // Preconditions: x.size() == y.size() >= 1; kernel matches the axes of x.
  // Throws std::runtime_error when no jitter up to 1e-2 * s2 makes the
  // matrix factorisable (only for NaN/inf input in practice).
  GaussianProcess(MixedKernel kernel, Points x, Eigen::VectorXd y);

  [[nodiscard]] std::vector<Prediction> predict(const Points& at) const;
  // log p(y | x, kernel), including the -n/2 log(2 pi) term.
  [[nodiscard]] double log_marginal_likelihood() const { return log_marginal_likelihood_; }
  // Diagonal added on top of the noise variance to factorise; 0 when none was needed.
  [[nodiscard]] double jitter() const { return jitter_; }
  [[nodiscard]] const MixedKernel& kernel() const { return kernel_; }

private:
  MixedKernel kernel_;
  Points x_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_; // (K + noise I)^-1 y
  double jitter_ = 0.0;
  double log_marginal_likelihood_ = 0.0;
};

} // namespace memtune::search
