#pragma once
// A Gaussian process's posterior over a fixed set of candidate points,
// updated one observation at a time: what a Bayesian search step needs
// (mean and variance at every candidate) without refactoring the Gram matrix
// or redoing the triangular solve over all candidates each step.
//
//   CandidatePosterior post(kernel, candidates);   // no observations yet
//   post.add(17); post.add(4);                     // candidates 17 and 4 were observed
//   post.predict(y, mean, variance);               // y: one target per add, in add order
//   post.add(9); ...; post.pop();                  // a fantasy, then gone again
//
// Holds L, the Cholesky factor of K(X, X) + noise I over the n observations,
// grown a row per add (rank-1 append: O(n^2)), and V = L^-1 K(X, C) over the
// N candidates, grown a row per add (O(n N)); then
//   mean = V^T (L^-1 y)   (O(n N)),   variance = s2 - colsum(V .^ 2)   (kept as a running sum).
// A step therefore costs O(n N) instead of the O(n^2 N + n^3) of a fresh
// GaussianProcess; a new kernel (a hyperparameter refit) rebuilds the same
// observations (set_kernel). Many observations at once (add_all) take one
// Cholesky factorisation and one blocked triangular solve: the same O(n^2 N)
// as n adds, at matrix-matrix speed instead of n passes over V. The posterior is the one GaussianProcess
// (gp.hpp) computes on the same data, up to rounding.
#include <memtune/search/encoding.hpp>
#include <memtune/search/kernels.hpp>

#include <Eigen/Core>

#include <vector>

namespace memtune::search {

class CandidatePosterior {
public:
  // Precondition: the kernel matches the axes of `candidates`.
  CandidatePosterior(MixedKernel kernel, Points candidates);

  // Observes candidate `row` (0 <= row < candidates): one more row of L and V.
  // Precondition: not already observed (a repeated point would make K singular
  // but for the noise); std::out_of_range for a row outside the candidates.
  void add(Eigen::Index row);
  // Observes these candidates, in this order: the same posterior as one add
  // each (up to rounding), built at once. Precondition: observations() == 0,
  // rows distinct; std::out_of_range for a row outside the candidates.
  void add_all(const std::vector<Eigen::Index>& rows);
  // Forgets the last add (fantasies: add, predict, pop). Precondition: observations() > 0.
  void pop();
  // Rebuilds the factor and V for the same observations under a new kernel.
  void set_kernel(MixedKernel kernel);

  [[nodiscard]] Eigen::Index observations() const { return static_cast<Eigen::Index>(rows_.size()); }
  [[nodiscard]] Eigen::Index candidates() const { return candidates_.size(); }
  // The observed candidates, in add order (the order of y in predict).
  [[nodiscard]] const std::vector<Eigen::Index>& rows() const { return rows_; }
  [[nodiscard]] const MixedKernel& kernel() const { return kernel_; }

  // Latent mean and variance (noise excluded, >= 0) at every candidate, given
  // one target per observation in add order. Precondition: y.size() == observations() >= 1.
  void predict(const Eigen::VectorXd& y, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;
  // The same at other points (O(n^2) each: for a handful).
  void predict_at(const Points& at, const Eigen::VectorXd& y, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const;

private:
  MixedKernel kernel_;
  Points candidates_;
  std::vector<Eigen::Index> rows_;
  Eigen::MatrixXd l_;         // capacity x capacity; the top-left n x n is the lower factor
  Eigen::MatrixXd vt_;        // N x capacity; column i is row i of V
  Eigen::VectorXd reduction_; // colsum(V .^ 2) per candidate
};

} // namespace memtune::search
