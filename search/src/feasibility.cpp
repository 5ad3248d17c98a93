#include <memtune/search/feasibility.hpp>

#include <stdexcept>

namespace memtune::search {

FeasibilityModel::FeasibilityModel(MixedKernel kernel, Points observed, std::vector<bool> ok, double prior_weight)
    : kernel_(std::move(kernel)), observed_(std::move(observed)), ok_(static_cast<Eigen::Index>(ok.size())),
      prior_weight_(prior_weight) {
  if (static_cast<Eigen::Index>(ok.size()) != observed_.size())
    throw std::invalid_argument("feasibility: need one outcome per observed point");
  if (!(prior_weight > 0.0)) throw std::invalid_argument("feasibility: prior weight must be positive");
  double successes = 0.0;
  for (std::size_t i = 0; i < ok.size(); ++i) successes += (ok_[static_cast<Eigen::Index>(i)] = ok[i] ? 1.0 : 0.0);
  // Laplace's rule: never exactly 0 or 1, so one early failure does not condemn unexplored regions.
  prior_ = (successes + 1.0) / (static_cast<double>(ok.size()) + 2.0);
}

std::vector<double> FeasibilityModel::probability(const Points& at) const {
  std::vector<double> p(static_cast<std::size_t>(at.size()), prior_);
  if (observed_.size() == 0) return p;
  const Eigen::MatrixXd k = kernel_.correlation(observed_, at); // n x m
  const Eigen::VectorXd weight = k.colwise().sum().transpose();
  const Eigen::VectorXd votes = k.transpose() * ok_;
  for (Eigen::Index j = 0; j < at.size(); ++j)
    p[static_cast<std::size_t>(j)] = (prior_weight_ * prior_ + votes[j]) / (prior_weight_ + weight[j]);
  return p;
}

} // namespace memtune::search
