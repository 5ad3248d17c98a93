#include "bound_order.hpp"

#include <algorithm>
#include <stdexcept>

namespace memtune {

void TopKCutoff::add(std::optional<double> predicted, double bound) {
  if (!predicted) return;
  // A relative slack for rounding: the bound and the prediction run the same
  // arithmetic on different occupancies.
  if (*predicted < bound * (1 - 1e-9)) violated_ = true;
  best_.insert(*predicted);
  if (best_.size() > k_) best_.erase(std::prev(best_.end()));
}

BoundOrder::BoundOrder(std::vector<std::pair<search::Config, double>> candidates, std::size_t k,
                       std::size_t lookahead)
    : candidates_(std::move(candidates)), lookahead_(std::max<std::size_t>(lookahead, 1)), cutoff_(k) {
  if (k == 0) throw std::invalid_argument("BoundOrder: k must be at least 1 (with k 0 nothing is bounded)");
  // Most promising first; grid order among equal bounds.
  std::stable_sort(candidates_.begin(), candidates_.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
}

std::optional<search::Config> BoundOrder::next() {
  // Later bounds are no lower: once this one cannot enter the top k, none can
  // (until an observation breaks the bound).
  if (next_ == candidates_.size() || !cutoff_.worth_compiling(candidates_[next_].second)) return std::nullopt;
  outstanding_.push_back(candidates_[next_]);
  return candidates_[next_++].first;
}

void BoundOrder::observe(const search::Trial& trial) {
  const auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                               [&](const auto& proposed) { return proposed.first == trial.config; });
  if (it == outstanding_.end()) return;
  cutoff_.add(trial.time_s, it->second);
  outstanding_.erase(it);
}

} // namespace memtune
