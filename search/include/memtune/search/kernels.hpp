#pragma once
// The covariance kernel for mixed ordinal/categorical spaces.
//
//   k(x, y) = s2 * matern52(r) * exp(-sum_c w_c [x_c != y_c])
//   r^2     = sum_o ((x_o - y_o) / l_o)^2        (ordinal coords in [0, 1])
//
// Matern 5/2 rather than the squared exponential because kernel run times
// are not infinitely smooth in the launch parameters (occupancy steps, bank
// conflicts switching on); per-axis length scales let the fit learn that some
// axes barely matter. The categorical factor is the exponentiated overlap
// (Hamming) kernel: a mismatch on axis c multiplies the correlation by
// exp(-w_c), a per-axis learned penalty. Each factor is positive
// semi-definite on its own, so the product is a valid kernel.
#include <memtune/search/encoding.hpp>

#include <Eigen/Core>

namespace memtune::search {

// Matern 5/2 correlation at scaled distance r >= 0: (1 + sqrt5 r + 5r^2/3) exp(-sqrt5 r).
[[nodiscard]] double matern52(double r);

struct MixedKernel {
  Eigen::VectorXd length_scales;    // per ordinal axis, in normalised coordinates; > 0
  Eigen::VectorXd mismatch_weights; // per categorical axis; >= 0
  double signal_variance = 1.0;     // s2, in units of the (standardised) target squared
  double noise_variance = 1e-3;     // added to the diagonal of the training Gram matrix

  // Length scales 0.5, weights 1, s2 = 1, noise 1e-3: a neutral start for
  // standardised targets.
  static MixedKernel defaults(Eigen::Index ordinal_axes, Eigen::Index categorical_axes);

  // Correlation k / s2 in [0, 1] between point i of a and point j of b.
  [[nodiscard]] double correlation(const Points& a, Eigen::Index i, const Points& b, Eigen::Index j) const;
  // The matrix of correlations, a.size() x b.size().
  [[nodiscard]] Eigen::MatrixXd correlation(const Points& a, const Points& b) const;

  // Parameters as an unconstrained vector for optimisers:
  // [log l_1.., log w_1.., log s2, log noise].
  [[nodiscard]] Eigen::VectorXd to_log_params() const;
  static MixedKernel from_log_params(const Eigen::VectorXd& theta, Eigen::Index ordinal_axes,
                                     Eigen::Index categorical_axes);
};

} // namespace memtune::search
