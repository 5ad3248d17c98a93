#pragma once
// Output warping: a Gaussian copula of the targets (Salinas, Shen & Perrone,
// "A Quantile-based Approach for Hyperparameter Transfer Learning", ICML 2020;
// HEBO warps outputs for the same reason). Each value is replaced by the
// standard-normal quantile of its rank, so the GP sees evenly spread targets:
// a few very slow configs no longer stretch the scale and flatten the
// differences among the fast ones, which are the ones the search must rank.
//
//   gaussian_copula({3.0, 1.0, 2.0}) == {q(5/6), q(1/6), q(1/2)}, q = normal_quantile
//
// The map is monotonic, so the best target stays the best and EI computed on
// the warped values still points at configs expected to beat it.
#include <Eigen/Core>

namespace memtune::search {

// Inverse of normal_cdf. Precondition: 0 < p < 1 (std::invalid_argument otherwise).
[[nodiscard]] double normal_quantile(double p);

// normal_quantile((rank + 0.5) / n) per value, ranks from 0; tied values share
// their average rank. Empty in, empty out.
[[nodiscard]] Eigen::VectorXd gaussian_copula(const Eigen::VectorXd& values);

} // namespace memtune::search
