#include <memtune/search/kernels.hpp>

#include <cmath>
#include <stdexcept>

namespace memtune::search {

double matern52(double r) {
  const double s = std::sqrt(5.0) * r;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

MixedKernel MixedKernel::defaults(Eigen::Index ordinal_axes, Eigen::Index categorical_axes) {
  return {Eigen::VectorXd::Constant(ordinal_axes, 0.5), Eigen::VectorXd::Constant(categorical_axes, 1.0), 1.0, 1e-3};
}

double MixedKernel::correlation(const Points& a, Eigen::Index i, const Points& b, Eigen::Index j) const {
  double r2 = 0.0;
  for (Eigen::Index o = 0; o < length_scales.size(); ++o) {
    const double d = (a.ordinal(i, o) - b.ordinal(j, o)) / length_scales[o];
    r2 += d * d;
  }
  double mismatch = 0.0;
  for (Eigen::Index c = 0; c < mismatch_weights.size(); ++c)
    if (a.categorical(i, c) != b.categorical(j, c)) mismatch += mismatch_weights[c];
  return matern52(std::sqrt(r2)) * std::exp(-mismatch);
}

Eigen::MatrixXd MixedKernel::correlation(const Points& a, const Points& b) const {
  if (a.ordinal.cols() != length_scales.size() || b.ordinal.cols() != length_scales.size() ||
      a.categorical.cols() != mismatch_weights.size() || b.categorical.cols() != mismatch_weights.size())
    throw std::invalid_argument("kernel: points and kernel disagree on the number of axes");
  // The same sum as the pairwise form, with the divisions hoisted out and one
  // exp per pair (matern's and the mismatch factor's exponents added),
  // computed a column at a time as array expressions so that the distances
  // and the exp are vectorised (Eigen's packet exp, ~1 ulp): the Bayesian
  // search spends most of its time here.
  const Eigen::Index no = length_scales.size(), nc = mismatch_weights.size();
  const Eigen::ArrayXXd sa = a.ordinal.array().rowwise() / length_scales.transpose().array();
  const Eigen::ArrayXXd sb = b.ordinal.array().rowwise() / length_scales.transpose().array();
  const double root5 = std::sqrt(5.0);
  Eigen::MatrixXd k(a.size(), b.size());
  Eigen::ArrayXd r2(a.size()), exponent(a.size()), s(a.size());
  for (Eigen::Index j = 0; j < b.size(); ++j) {
    r2.setZero();
    for (Eigen::Index o = 0; o < no; ++o) r2 += (sa.col(o) - sb(j, o)).square();
    exponent.setZero();
    for (Eigen::Index c = 0; c < nc; ++c)
      exponent += (a.categorical.col(c).array() != b.categorical(j, c)).cast<double>() * mismatch_weights[c];
    s = root5 * r2.sqrt();
    exponent = -(s + exponent);
    k.col(j) = ((1.0 + s + s.square() / 3.0) * exponent.exp()).matrix();
  }
  return k;
}

Eigen::VectorXd MixedKernel::to_log_params() const {
  const Eigen::Index no = length_scales.size(), nc = mismatch_weights.size();
  Eigen::VectorXd theta(no + nc + 2);
  theta.head(no) = length_scales.array().log();
  theta.segment(no, nc) = mismatch_weights.array().log();
  theta[no + nc] = std::log(signal_variance);
  theta[no + nc + 1] = std::log(noise_variance);
  return theta;
}

MixedKernel MixedKernel::from_log_params(const Eigen::VectorXd& theta, Eigen::Index ordinal_axes,
                                         Eigen::Index categorical_axes) {
  if (theta.size() != ordinal_axes + categorical_axes + 2)
    throw std::invalid_argument("kernel: wrong number of log-parameters");
  MixedKernel k;
  k.length_scales = theta.head(ordinal_axes).array().exp();
  k.mismatch_weights = theta.segment(ordinal_axes, categorical_axes).array().exp();
  k.signal_variance = std::exp(theta[ordinal_axes + categorical_axes]);
  k.noise_variance = std::exp(theta[ordinal_axes + categorical_axes + 1]);
  return k;
}

} // namespace memtune::search
