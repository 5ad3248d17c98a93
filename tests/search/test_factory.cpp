#include "spaces.hpp"

#include <memtune/search/factory.hpp>

#include <doctest/doctest.h>

using namespace memtune::search;

TEST_CASE("make_strategy builds every known strategy by name") {
  const Space s = testing::small_space();
  CHECK(strategy_names() == std::vector<std::string>{"grid", "random", "bayes"});
  for (const auto& name : strategy_names()) {
    std::mt19937_64 engine(1);
    const auto strategy = make_strategy(name, s, engine);
    REQUIRE(strategy != nullptr);
    CHECK(strategy->name() == name);
    const auto first = strategy->next();
    REQUIRE(first.has_value());
    CHECK(s.is_valid(*first));
  }
}

TEST_CASE("bayes options reach the strategy") {
  const Space s = testing::small_space();
  std::mt19937_64 engine(1);
  StrategyOptions options;
  options.bayes.initial_points = 2;
  auto strategy = make_strategy("bayes", s, engine, options);
  // After the 2-point design, proposals come from the model: exercise it once.
  for (int i = 0; i < 3; ++i) {
    auto c = strategy->next();
    REQUIRE(c.has_value());
    strategy->observe(testing::ok_trial(*c, 1e-3 * static_cast<double>(c->at("block_size"))));
  }
  CHECK(dynamic_cast<BayesianSearch&>(*strategy).kernel().length_scales.size() == 2);
}

TEST_CASE("an unknown name is an error that lists the known ones") {
  const Space s = testing::small_space();
  std::mt19937_64 engine(1);
  CHECK_THROWS_WITH_AS((void)make_strategy("annealing", s, engine),
                       doctest::Contains("annealing' (known: grid, random, bayes)"), std::invalid_argument);
}
