// BayesianSearch's candidate set: adding configs to it (encoded, with their
// prior), sampling a large space (random draws plus the best points'
// neighbours), and dropping a sample's untaken candidates after a proposal.
// The model and the proposal itself live in bayes.cpp.
#include <memtune/search/bayes.hpp>

#include <memtune/search/lazy_permutation.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace memtune::search {

void BayesianSearch::add_candidates(const std::vector<std::size_t>& indices) {
  if (indices.empty()) return;
  const Points added = encoder_.encode_indices(indices);
  const Eigen::Index start = points_.size(), n = added.size();
  points_.ordinal.conservativeResize(start + n, Eigen::NoChange);
  points_.categorical.conservativeResize(start + n, Eigen::NoChange);
  points_.ordinal.bottomRows(n) = added.ordinal;
  points_.categorical.bottomRows(n) = added.categorical;
  for (const std::size_t g : indices) {
    index_.emplace(g, grid_.size());
    grid_.push_back(g);
    taken_.push_back(false);
    if (options_.prior_mean) {
      space_->at_index(g, scratch_);
      prior_log_time_.push_back(options_.prior_mean(scratch_));
      if (!std::isfinite(prior_log_time_.back()))
        throw std::invalid_argument("bayes: the prior mean is not finite at " + space_->format(scratch_));
    }
  }
}

std::vector<std::size_t> BayesianSearch::neighbours_of_best(std::size_t best_count) const {
  std::vector<std::pair<double, std::size_t>> ok;
  for (const auto& [i, time] : observed_)
    if (time) ok.emplace_back(*time, i);
  const std::size_t best = std::min(best_count, ok.size());
  std::partial_sort(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(best), ok.end());
  // Each axis's stride in the cross-product index: the last axis varies fastest.
  const std::vector<Axis>& axes = space_->axes();
  std::vector<std::size_t> stride(axes.size(), 1);
  for (std::size_t k = axes.size(); k-- > 1;) stride[k - 1] = stride[k] * axes[k].values.size();
  std::vector<std::size_t> out;
  Config moved;
  for (std::size_t b = 0; b < best; ++b) {
    const std::size_t centre = grid_[ok[b].second];
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const std::size_t at = centre / stride[k] % axes[k].values.size();
      for (std::size_t v = 0; v < axes[k].values.size(); ++v) {
        // Ordinal: one notch either way; categorical: every other label.
        const bool near = axes[k].kind == AxisKind::categorical ? v != at : v + 1 == at || v == at + 1;
        if (!near) continue;
        const std::size_t g = centre - at * stride[k] + v * stride[k];
        space_->at_index(g, moved);
        if (space_->admits(moved)) out.push_back(g);
      }
    }
  }
  return out;
}

void BayesianSearch::add_sample(std::size_t size, bool with_neighbours) {
  std::vector<std::size_t> fresh;
  std::unordered_set<std::size_t> seen;
  if (with_neighbours)
    for (const std::size_t g : neighbours_of_best(3))
      if (!index_.count(g) && seen.insert(g).second) fresh.push_back(g);
  const std::size_t wanted = fresh.size() + size;
  LazyPermutation order(space_->cross_product_size(), *engine_);
  bool drained = false;
  // Valid configs so sparse that one sample draws half the cross product
  // (about twice the sample valid in all) would cost that scan again at
  // every proposal: the draw goes on to the end instead, once, and the
  // space is scored whole from then on. (An fdtd space of 2172 valid
  // configs in a cross product of 1.17 million took 0.76 s a proposal.)
  const std::size_t half = space_->cross_product_size() / 2;
  std::size_t drawn = 0;
  while (fresh.size() < wanted || drawn >= half) {
    const auto i = order.next();
    if (!i) {
      drained = true;
      break;
    }
    ++drawn;
    if (index_.count(*i) || seen.count(*i)) continue;
    space_->at_index(*i, scratch_);
    if (!space_->admits(scratch_)) continue;
    seen.insert(*i);
    fresh.push_back(*i);
  }
  add_candidates(fresh);
  // The permutation drew every point of the cross product: the candidates
  // are now every valid config, so keep them and score them whole.
  if (drained) sampled_ = false;
}

std::optional<std::size_t> BayesianSearch::drop_untaken_from(std::size_t start, std::optional<std::size_t> keep) {
  constexpr std::size_t gone = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> moved_to(grid_.size(), gone);
  std::vector<Eigen::Index> rows;
  for (std::size_t i = 0; i < start; ++i) moved_to[i] = i, rows.push_back(static_cast<Eigen::Index>(i));
  std::size_t w = start;
  for (std::size_t i = start; i < grid_.size(); ++i) {
    if (!taken_[i] && keep != i) {
      index_.erase(grid_[i]);
      continue;
    }
    moved_to[i] = w;
    rows.push_back(static_cast<Eigen::Index>(i));
    if (w != i) {
      grid_[w] = grid_[i];
      index_[grid_[w]] = w;
      taken_[w] = taken_[i];
      if (!prior_log_time_.empty()) prior_log_time_[w] = prior_log_time_[i];
    }
    ++w;
  }
  points_ = points_.subset(rows);
  grid_.resize(w);
  taken_.resize(w);
  if (!prior_log_time_.empty()) prior_log_time_.resize(w);
  for (std::size_t& d : design_) d = moved_to[d];
  std::set<std::size_t> pending;
  for (const std::size_t p : pending_) pending.insert(moved_to[p]);
  pending_ = std::move(pending);
  std::map<std::size_t, std::optional<double>> observed;
  for (const auto& [i, time] : observed_) observed.emplace(moved_to[i], time);
  observed_ = std::move(observed);
  return keep ? std::optional(moved_to[*keep]) : std::nullopt;
}

} // namespace memtune::search
