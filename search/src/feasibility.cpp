#include <memtune/search/feasibility.hpp>

#include <algorithm>
#include <stdexcept>

namespace memtune::search {

// Laplace's rule: never exactly 0 or 1, so one early failure does not condemn unexplored regions.
double FeasibilityModel::success_prior(const std::vector<bool>& ok) {
  const auto successes = static_cast<double>(std::count(ok.begin(), ok.end(), true));
  return (successes + 1.0) / (static_cast<double>(ok.size()) + 2.0);
}

namespace {

Eigen::VectorXd residuals(const std::vector<bool>& ok, double prior) {
  Eigen::VectorXd r(static_cast<Eigen::Index>(ok.size()));
  for (std::size_t i = 0; i < ok.size(); ++i) r[static_cast<Eigen::Index>(i)] = (ok[i] ? 1.0 : 0.0) - prior;
  return r;
}

} // namespace

FeasibilityModel::FeasibilityModel(MixedKernel kernel, Points observed, std::vector<bool> ok, double floor)
    : prior_(success_prior(ok)), floor_(floor) {
  if (static_cast<Eigen::Index>(ok.size()) != observed.size())
    throw std::invalid_argument("feasibility: need one outcome per observed point");
  if (!(floor >= 0.0 && floor < 1.0)) throw std::invalid_argument("feasibility: floor must be in [0, 1)");
  if (observed.size() > 0) gp_.emplace(std::move(kernel), std::move(observed), residuals(ok, prior_));
}

std::vector<double> FeasibilityModel::probability(const Points& at) const {
  std::vector<double> p(static_cast<std::size_t>(at.size()), std::max(prior_, floor_));
  if (!gp_) return p;
  const auto predicted = gp_->predict(at);
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = std::clamp(prior_ + predicted[j].mean, floor_, 1.0);
  return p;
}

MixedKernel FeasibilityModel::fit_kernel(const Points& observed, const std::vector<bool>& ok,
                                         const MixedKernel& start, std::mt19937_64& engine,
                                         const HyperfitOptions& options) {
  if (static_cast<Eigen::Index>(ok.size()) != observed.size())
    throw std::invalid_argument("feasibility: need one outcome per observed point");
  return fit_hyperparameters(observed, residuals(ok, success_prior(ok)), start, engine, options).kernel;
}

} // namespace memtune::search
