#include <memtune/search/first_then.hpp>

#include <algorithm>
#include <stdexcept>

namespace memtune::search {
namespace {

bool holds(const std::vector<Config>& list, const Config& c) { return std::find(list.begin(), list.end(), c) != list.end(); }

} // namespace

FirstThen::FirstThen(std::vector<Config> first, std::unique_ptr<Strategy> then)
    : first_(std::move(first)), then_(std::move(then)) {
  if (!then_) throw std::invalid_argument("FirstThen: needs a strategy to follow the first configurations");
}

std::optional<Config> FirstThen::next() {
  while (next_first_ < first_.size()) {
    const Config& c = first_[next_first_++];
    if (observed_.count(c) || holds(outstanding_, c)) continue;
    outstanding_.push_back(c);
    return c;
  }
  // The inner strategy may propose one of ours still being measured: its
  // observation will reach it all the same.
  while (auto c = then_->next())
    if (!holds(outstanding_, *c)) return c;
  return std::nullopt;
}

void FirstThen::observe(const Trial& trial) {
  const auto it = std::find(outstanding_.begin(), outstanding_.end(), trial.config);
  if (it != outstanding_.end()) outstanding_.erase(it);
  observed_.insert(trial.config);
  then_->observe(trial);
}

} // namespace memtune::search
