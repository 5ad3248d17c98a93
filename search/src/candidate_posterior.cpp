#include <memtune/search/candidate_posterior.hpp>

#include <Eigen/Cholesky>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace memtune::search {

CandidatePosterior::CandidatePosterior(MixedKernel kernel, Points candidates)
    : kernel_(std::move(kernel)), candidates_(std::move(candidates)),
      reduction_(Eigen::VectorXd::Zero(candidates_.size())) {}

namespace {

void check_row(Eigen::Index row, Eigen::Index candidates) {
  if (row < 0 || row >= candidates)
    throw std::out_of_range("candidate posterior: row " + std::to_string(row) + " is not one of the " +
                            std::to_string(candidates) + " candidates");
}

} // namespace

void CandidatePosterior::add(Eigen::Index row) {
  check_row(row, candidates_.size());
  const Eigen::Index n = observations();
  if (n == l_.rows()) {
    // Grow by doubling: a run of n observations copies O(n^2) in all.
    const Eigen::Index capacity = std::max<Eigen::Index>(16, 2 * n);
    l_.conservativeResize(capacity, capacity);
    vt_.conservativeResize(candidates_.size(), capacity);
  }
  const Points x = candidates_.subset({row});
  const double s2 = kernel_.signal_variance;
  Eigen::VectorXd l(n);
  if (n > 0) {
    const Points observed = candidates_.subset(rows_);
    l = s2 * kernel_.correlation(observed, x).col(0);
    l_.topLeftCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(l);
  }
  // The new diagonal is the conditional variance of the new observation given
  // the others, which the noise keeps above noise_variance; rounding alone
  // could push it lower.
  const double d2 = std::max(s2 + kernel_.noise_variance - l.squaredNorm(), 0.5 * kernel_.noise_variance);
  const double d = std::sqrt(d2);
  l_.row(n).head(n) = l.transpose();
  l_(n, n) = d;
  Eigen::VectorXd v = s2 * kernel_.correlation(candidates_, x).col(0);
  if (n > 0) v.noalias() -= vt_.leftCols(n) * l;
  v /= d;
  vt_.col(n) = v;
  reduction_ += v.cwiseAbs2();
  rows_.push_back(row);
}

void CandidatePosterior::add_all(const std::vector<Eigen::Index>& rows) {
  if (!rows_.empty()) throw std::logic_error("candidate posterior: add_all on a posterior with observations");
  for (const Eigen::Index r : rows) check_row(r, candidates_.size());
  const auto n = static_cast<Eigen::Index>(rows.size());
  if (n == 0) return;
  const double s2 = kernel_.signal_variance;
  const Points x = candidates_.subset(rows);
  Eigen::MatrixXd gram = s2 * kernel_.correlation(x, x);
  gram.diagonal().array() += kernel_.noise_variance;
  const Eigen::LLT<Eigen::MatrixXd> llt(gram);
  if (llt.info() != Eigen::Success) {
    // Rounding made the Gram matrix indefinite (near-duplicate points under a
    // tiny noise): add() clamps each new pivot, so take that path instead.
    for (const Eigen::Index r : rows) add(r);
    return;
  }
  const Eigen::Index capacity = std::max<Eigen::Index>(16, 2 * n);
  l_.resize(capacity, capacity);
  vt_.resize(candidates_.size(), capacity);
  l_.topLeftCorner(n, n) = llt.matrixL();
  // V^T = K(C, X) L^-T: one blocked solve from the right over all candidates.
  auto vt = vt_.leftCols(n);
  vt.noalias() = s2 * kernel_.correlation(candidates_, x);
  l_.topLeftCorner(n, n).triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(vt);
  reduction_ = vt.rowwise().squaredNorm();
  rows_ = rows;
}

void CandidatePosterior::pop() {
  if (rows_.empty()) throw std::logic_error("candidate posterior: pop without an observation");
  rows_.pop_back();
  reduction_ -= vt_.col(observations()).cwiseAbs2();
}

void CandidatePosterior::set_kernel(MixedKernel kernel) {
  kernel_ = std::move(kernel);
  const std::vector<Eigen::Index> rows = std::move(rows_);
  rows_.clear();
  reduction_.setZero();
  add_all(rows);
}

void CandidatePosterior::predict(const Eigen::VectorXd& y, Eigen::VectorXd& mean, Eigen::VectorXd& variance) const {
  const Eigen::Index n = observations();
  if (n < 1 || y.size() != n) throw std::invalid_argument("candidate posterior: need one target per observation, >= 1");
  const Eigen::VectorXd beta = l_.topLeftCorner(n, n).triangularView<Eigen::Lower>().solve(y);
  mean.noalias() = vt_.leftCols(n) * beta;
  variance = (kernel_.signal_variance - reduction_.array()).max(0.0).matrix();
}

void CandidatePosterior::predict_at(const Points& at, const Eigen::VectorXd& y, Eigen::VectorXd& mean,
                                    Eigen::VectorXd& variance) const {
  const Eigen::Index n = observations();
  if (n < 1 || y.size() != n) throw std::invalid_argument("candidate posterior: need one target per observation, >= 1");
  const auto lower = l_.topLeftCorner(n, n).triangularView<Eigen::Lower>();
  const Eigen::MatrixXd v = lower.solve(kernel_.signal_variance * kernel_.correlation(candidates_.subset(rows_), at));
  mean.noalias() = v.transpose() * lower.solve(y);
  variance = (kernel_.signal_variance - v.colwise().squaredNorm().transpose().array()).max(0.0).matrix();
}

} // namespace memtune::search
