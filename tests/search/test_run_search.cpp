#include "spaces.hpp"

#include <memtune/search/grid.hpp>
#include <memtune/search/run_search.hpp>

#include <doctest/doctest.h>

#include <algorithm>

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

namespace {
// Grid order, lookahead 3, and a record of how many proposals were outstanding.
class Spy final : public Strategy {
public:
  explicit Spy(const Space& s) : grid_(s) {}
  std::string name() const override { return "spy"; }
  std::optional<Config> next() override {
    auto c = grid_.next();
    if (c) max_outstanding = std::max(max_outstanding, ++outstanding);
    return c;
  }
  void observe(const Trial&) override { --outstanding; }
  std::size_t lookahead() const override { return 3; }
  std::size_t outstanding = 0, max_outstanding = 0;

private:
  GridSearch grid_;
};
} // namespace

TEST_CASE("run_search with workers keeps min(workers, lookahead) proposals outstanding, observed oldest first") {
  const Space s = testing::small_space();
  for (const std::size_t workers : {1, 2, 8}) {
    Spy spy(s);
    const auto result = run_search(spy, [](const Config& c) { return testing::ok_trial(c, 1.0); }, {}, workers);
    CHECK(spy.max_outstanding == std::min<std::size_t>(workers, 3));
    CHECK(spy.outstanding == 0);
    REQUIRE(result.trials.size() == 22);
    for (std::size_t i = 0; i < 22; ++i) CHECK(result.trials[i].config == s.enumerate()[i]); // FIFO: grid order
  }
  // A stop rule drops what is still outstanding, unevaluated.
  Spy spy(s);
  const auto stopped = run_search(spy, [](const Config& c) { return testing::ok_trial(c, 1.0); },
                                  StopRules{}.add(EvaluationBudget{5}), 3);
  CHECK(stopped.trials.size() == 5);
  CHECK(spy.outstanding == 2);
}
