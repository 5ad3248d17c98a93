#include <memtune/search/stop_rules.hpp>

#include <doctest/doctest.h>

using namespace memtune::search;
using namespace std::chrono_literals;

namespace {
SearchProgress at(std::size_t evaluations, std::optional<double> best = std::nullopt) {
  SearchProgress p;
  p.evaluations = evaluations;
  p.best_time_s = best;
  return p;
}
} // namespace

TEST_CASE("evaluation budget") {
  EvaluationBudget rule(3);
  CHECK_FALSE(rule.check(at(2)).has_value());
  const auto why = rule.check(at(3));
  REQUIRE(why.has_value());
  CHECK(why->find("3") != std::string::npos);
}

TEST_CASE("wall-time budget uses the injected clock from start()") {
  auto now = std::chrono::steady_clock::time_point{} + 100s;
  WallTimeBudget rule(2.5s, [&] { return now; });
  rule.start();
  now += 2s;
  CHECK_FALSE(rule.check(at(1)).has_value());
  now += 600ms;
  CHECK(rule.check(at(1)).has_value());
  rule.start(); // a new search restarts the clock
  CHECK_FALSE(rule.check(at(1)).has_value());
}

TEST_CASE("no-improvement patience counts evaluations since the last real gain") {
  NoImprovement rule(3, 0.01);
  rule.start();
  CHECK_FALSE(rule.check(at(1, 10.0)).has_value());
  CHECK_FALSE(rule.check(at(2, 9.95)).has_value()); // 0.5% better: not enough
  CHECK_FALSE(rule.check(at(3, 9.95)).has_value());
  CHECK(rule.check(at(4, 9.95)).has_value());        // 3 since evaluation 1

  rule.start();
  CHECK_FALSE(rule.check(at(1, 10.0)).has_value());
  CHECK_FALSE(rule.check(at(3, 9.0)).has_value()); // 10% better: resets
  CHECK_FALSE(rule.check(at(5, 9.0)).has_value());
  CHECK(rule.check(at(6, 9.0)).has_value());

  NoImprovement never_succeeds(2);
  never_succeeds.start();
  CHECK_FALSE(never_succeeds.check(at(1)).has_value());
  CHECK(never_succeeds.check(at(2)).has_value());
}

TEST_CASE("any-of stops when the first of its rules does, and never when empty") {
  StopRules none;
  CHECK(none.empty());
  CHECK_FALSE(none.check(at(1000000)).has_value());

  auto now = std::chrono::steady_clock::time_point{};
  StopRules rules;
  rules.add(EvaluationBudget{10}).add(WallTimeBudget{1s, [&] { return now; }});
  rules.start();
  CHECK_FALSE(rules.check(at(5)).has_value());
  now += 2s;
  const auto why = rules.check(at(5));
  REQUIRE(why.has_value());
  CHECK(why->find("wall-time") != std::string::npos);
  now = {};
  rules.start();
  CHECK(rules.check(at(10))->find("evaluation") != std::string::npos);
}

TEST_CASE("the evaluation cap is the budget's; any-of caps at the smallest of its budgets") {
  CHECK(EvaluationBudget{7}.max_evaluations() == 7);
  CHECK_FALSE(NoImprovement{3}.max_evaluations().has_value());
  CHECK_FALSE(WallTimeBudget{1s}.max_evaluations().has_value());
  StopRules rules;
  CHECK_FALSE(rules.max_evaluations().has_value());
  rules.add(NoImprovement{3}).add(EvaluationBudget{40});
  CHECK(rules.max_evaluations() == 40);
  rules.add(EvaluationBudget{12}).add(EvaluationBudget{25});
  CHECK(rules.max_evaluations() == 12);
}
