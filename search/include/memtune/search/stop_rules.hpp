#pragma once
// When to stop a search: small rules, combined with AnyOf.
//
//   StopRules stop;
//   stop.add(EvaluationBudget{40}).add(NoImprovement{15});
//   run_search(strategy, objective, stop);   // stops at 40 trials, or 15 without a new best
//
// A rule sees the progress after each trial and returns why it stops, or
// nullopt to go on. start() is called once when a search begins.
#include <chrono>
#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace memtune::search {

struct SearchProgress {
  std::size_t evaluations = 0;           // trials so far, failed ones included
  std::size_t failures = 0;
  std::optional<double> best_time_s;     // [seconds] (or the objective's unit); nullopt until a trial succeeds
};

class StopRule {
public:
  virtual ~StopRule() = default;
  virtual void start() {}
  [[nodiscard]] virtual std::optional<std::string> check(const SearchProgress& progress) = 0;
  // The most trials the rule lets a search make, when it caps them: the loop
  // proposes no more than that, so nothing is prepared (compiled) that will
  // not be evaluated. nullopt: no cap.
  [[nodiscard]] virtual std::optional<std::size_t> max_evaluations() const { return std::nullopt; }
};

// Stops once `max_evaluations` trials have been made.
class EvaluationBudget final : public StopRule {
public:
  explicit EvaluationBudget(std::size_t max_evaluations) : max_(max_evaluations) {}
  std::optional<std::string> check(const SearchProgress& progress) override;
  [[nodiscard]] std::optional<std::size_t> max_evaluations() const override { return max_; }

private:
  std::size_t max_;
};

// Stops once `budget` of wall time has passed since start(). The clock is
// injectable so that tests need not sleep.
class WallTimeBudget final : public StopRule {
public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit WallTimeBudget(std::chrono::duration<double> budget, Clock clock = &std::chrono::steady_clock::now)
      : budget_(budget), clock_(std::move(clock)) {}
  void start() override { started_ = clock_(); }
  std::optional<std::string> check(const SearchProgress& progress) override;

private:
  std::chrono::duration<double> budget_; // [seconds]
  Clock clock_;
  std::chrono::steady_clock::time_point started_{};
};

// Stops after `patience` consecutive trials without a new best that beats the
// previous one by more than `min_relative_gain` (0.01 = 1% faster). Trials
// before the first success count towards patience too.
class NoImprovement final : public StopRule {
public:
  explicit NoImprovement(std::size_t patience, double min_relative_gain = 0.0)
      : patience_(patience), min_gain_(min_relative_gain) {}
  void start() override;
  std::optional<std::string> check(const SearchProgress& progress) override;

private:
  std::size_t patience_;
  double min_gain_;
  std::optional<double> best_;           // [seconds]; the last best that counted
  std::size_t improved_at_ = 0;          // evaluations when it was found
};

// Stops as soon as any of its rules does; with no rules, never.
class AnyOf final : public StopRule {
public:
  AnyOf& add(std::shared_ptr<StopRule> rule);
  template <class Rule>
    requires std::derived_from<Rule, StopRule>
  AnyOf& add(Rule rule) { return add(std::make_shared<Rule>(std::move(rule))); }

  void start() override;
  std::optional<std::string> check(const SearchProgress& progress) override;
  // The smallest cap of its rules.
  [[nodiscard]] std::optional<std::size_t> max_evaluations() const override;
  [[nodiscard]] bool empty() const { return rules_.empty(); }

private:
  std::vector<std::shared_ptr<StopRule>> rules_;
};

using StopRules = AnyOf;

} // namespace memtune::search
