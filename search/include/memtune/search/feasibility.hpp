#pragma once
// Probability that a config runs at all (compiles, fits the device, gives the
// right answer), learnt from the trials so far.
//
// Failed trials have no time. Fitting them as huge times would wreck the
// regression's length scales and mean; instead the search multiplies expected
// improvement by P(feasible). The estimate is a kernel-weighted vote with a
// prior: p(x) = (c p0 + sum_i k(x, x_i) ok_i) / (c + sum_i k(x, x_i)), where
// p0 is the smoothed overall success rate and c the prior's weight in
// pseudo-trials. Far from any trial p -> p0; next to failures p -> 0. This is
// the Nadaraya-Watson estimate of a GP classifier's mean with no
// latent-variable fitting, so it stays cheap and has no tuning loop.
#include <memtune/search/encoding.hpp>
#include <memtune/search/kernels.hpp>

#include <vector>

namespace memtune::search {

class FeasibilityModel {
public:
  // kernel: only its correlation shape is used (length scales and mismatch
  // weights). Preconditions: ok.size() == observed.size().
  FeasibilityModel(MixedKernel kernel, Points observed, std::vector<bool> ok, double prior_weight = 0.5);

  // P(feasible) of each point, in [0, 1].
  [[nodiscard]] std::vector<double> probability(const Points& at) const;
  [[nodiscard]] double prior() const { return prior_; }

private:
  MixedKernel kernel_;
  Points observed_;
  Eigen::VectorXd ok_;
  double prior_ = 1.0;
  double prior_weight_ = 0.5;
};

} // namespace memtune::search
