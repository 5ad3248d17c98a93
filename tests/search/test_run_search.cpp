#include "spaces.hpp"

#include <memtune/search/grid.hpp>
#include <memtune/search/run_search.hpp>

#include <doctest/doctest.h>

using namespace memtune::search;

TEST_CASE("run_search evaluates until the space is exhausted and returns the best") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  int calls = 0;
  const auto result = run_search(grid, [&](const Config& c) {
    ++calls;
    if (c.at("layout") == 1 && c.at("items") == 1) return testing::failed_trial(c, "wrong_result");
    return testing::ok_trial(Config{}, 1.0 / static_cast<double>(c.at("block_size") * c.at("items")) +
                                           0.1 * static_cast<double>(c.at("layout")));
  });
  CHECK(calls == 22);
  CHECK(result.trials.size() == 22);
  CHECK(result.stop_reason == "space exhausted");
  for (std::size_t i = 0; i < 22; ++i) CHECK(result.trials[i].config == s.enumerate()[i]); // config filled in
  REQUIRE(result.best.has_value());
  CHECK(result.best->config.at("block_size") * result.best->config.at("items") == 1024);
  CHECK(result.best->config.at("layout") == 0);
}

TEST_CASE("run_search stops when a rule fires and reports why") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  const auto result = run_search(grid, [](const Config& c) { return testing::ok_trial(c, 1.0); },
                                 StopRules{}.add(EvaluationBudget{5}));
  CHECK(result.trials.size() == 5);
  CHECK(result.stop_reason.find("evaluation budget") != std::string::npos);
  REQUIRE(result.best.has_value());
  CHECK(result.best->config == result.trials.front().config); // first on ties
}

TEST_CASE("run_search with only failures has no best, and failures count for stop rules") {
  const Space s = testing::small_space();
  GridSearch grid(s);
  const auto result = run_search(grid, [](const Config& c) { return testing::failed_trial(c); },
                                 StopRules{}.add(NoImprovement{4}));
  CHECK(result.trials.size() == 4);
  CHECK_FALSE(result.best.has_value());
}
