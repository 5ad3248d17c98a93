#include <memtune/search/stop_rules.hpp>

#include <sstream>

namespace memtune::search {

std::optional<std::string> EvaluationBudget::check(const SearchProgress& progress) {
  if (progress.evaluations < max_) return std::nullopt;
  return "evaluation budget of " + std::to_string(max_) + " reached";
}

std::optional<std::string> WallTimeBudget::check(const SearchProgress&) {
  if (clock_() - started_ < budget_) return std::nullopt;
  std::ostringstream why;
  why << "wall-time budget of " << budget_.count() << " s reached";
  return why.str();
}

void NoImprovement::start() {
  best_.reset();
  improved_at_ = 0;
}

std::optional<std::string> NoImprovement::check(const SearchProgress& progress) {
  if (progress.best_time_s && (!best_ || *progress.best_time_s < *best_ * (1.0 - min_gain_))) {
    best_ = progress.best_time_s;
    improved_at_ = progress.evaluations;
  }
  if (progress.evaluations - improved_at_ < patience_) return std::nullopt;
  return "no improvement in " + std::to_string(patience_) + " evaluations";
}

AnyOf& AnyOf::add(std::shared_ptr<StopRule> rule) {
  rules_.push_back(std::move(rule));
  return *this;
}

void AnyOf::start() {
  for (auto& r : rules_) r->start();
}

std::optional<std::size_t> AnyOf::max_evaluations() const {
  std::optional<std::size_t> cap;
  for (const auto& r : rules_)
    if (auto n = r->max_evaluations(); n && (!cap || *n < *cap)) cap = n;
  return cap;
}

std::optional<std::string> AnyOf::check(const SearchProgress& progress) {
  for (auto& r : rules_)
    if (auto why = r->check(progress)) return why;
  return std::nullopt;
}

} // namespace memtune::search
