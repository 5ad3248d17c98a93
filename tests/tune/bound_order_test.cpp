// The modeled grid's strategy (tune/src/bound_order.hpp): the top-k cut-off,
// proposals in bound order, the stop once no bound can enter the top k, and
// the fallback to every configuration once a time undercuts its bound; run
// through search::run_search as the tuner runs it.
#include "tune/src/bound_order.hpp"

#include <memtune/search/run_search.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace memtune;
using search::Config;

namespace {

Config cfg(std::int64_t id) { return Config{{"id", id}}; }

// Six configurations in grid order 0..5 with bounds 5 1 3 2 4 6: bound order
// is 1, 3, 2, 4, 0, 5.
std::vector<std::pair<Config, double>> six() {
  return {{cfg(0), 5.0}, {cfg(1), 1.0}, {cfg(2), 3.0}, {cfg(3), 2.0}, {cfg(4), 4.0}, {cfg(5), 6.0}};
}

// The ids of the trials, in the order they ended.
std::vector<std::int64_t> ids(const search::SearchResult& r) {
  std::vector<std::int64_t> out;
  for (const search::Trial& t : r.trials) out.push_back(t.config.at("id"));
  return out;
}

// An objective with a time per id (nullopt: the candidate failed).
search::Objective times(std::map<std::int64_t, std::optional<double>> by_id) {
  return [by_id](const Config& c) {
    const std::optional<double> t = by_id.at(c.at("id"));
    return t ? search::Trial{c, t, "ok", ""} : search::Trial{c, std::nullopt, "compile_failed", "no"};
  };
}

// Each configuration's time is its bound: a bound that holds exactly.
const search::Objective at_bound = times({{0, 5.0}, {1, 1.0}, {2, 3.0}, {3, 2.0}, {4, 4.0}, {5, 6.0}});

} // namespace

TEST_CASE("top-k cut-off: compiles until k are known, then only bounds below the k-th") {
  TopKCutoff cut(2);
  CHECK(cut.worth_compiling(9.0));
  cut.add(3.0, 1.0);
  CHECK(cut.worth_compiling(9.0)); // one of two known
  cut.add(std::nullopt, 1.0);      // a failed candidate fills no slot
  CHECK(cut.worth_compiling(9.0));
  cut.add(5.0, 2.0);
  CHECK_FALSE(cut.worth_compiling(5.0)); // could only tie the 2nd best
  CHECK(cut.worth_compiling(4.9));
  cut.add(4.0, 4.0);                     // the 2nd best is now 4
  CHECK_FALSE(cut.worth_compiling(4.5));
  CHECK_FALSE(cut.violated());
}

TEST_CASE("top-k cut-off: a prediction below its bound turns the cut-off off") {
  TopKCutoff cut(1);
  cut.add(1.0, 1.0);
  CHECK_FALSE(cut.worth_compiling(2.0));
  cut.add(0.5, 0.9);
  CHECK(cut.violated());
  CHECK(cut.worth_compiling(100.0));
}

TEST_CASE("bound order proposes by bound, grid order among equal bounds, all of them while k is not reached") {
  BoundOrder strategy({{cfg(0), 2.0}, {cfg(1), 1.0}, {cfg(2), 2.0}, {cfg(3), 0.5}, {cfg(4), 2.0}}, 10, 1);
  const auto r = search::run_search(strategy, times({{0, 2.0}, {1, 1.0}, {2, 2.0}, {3, 0.5}, {4, 2.0}}));
  CHECK(ids(r) == std::vector<std::int64_t>{3, 1, 0, 2, 4});
  CHECK(strategy.not_proposed() == 0);
  CHECK_FALSE(strategy.bound_violated());
}

TEST_CASE("bound order stops once the next bound cannot enter the top k") {
  SUBCASE("one proposal at a time: exactly the top k") {
    BoundOrder strategy(six(), 2, 1);
    const auto r = search::run_search(strategy, at_bound);
    CHECK(ids(r) == std::vector<std::int64_t>{1, 3}); // next bound 3 is no better than the 2nd best, 2
    CHECK(strategy.not_proposed() == 4);
    CHECK(r.stop_reason.empty());
  }
  SUBCASE("three ahead: what was proposed before the cut-off closed still ends") {
    BoundOrder strategy(six(), 2, 3);
    const auto r = search::run_search(strategy, at_bound, {}, 3);
    // 1, 3, 2 proposed at once; 4 while only one time was known; then closed.
    CHECK(ids(r) == std::vector<std::int64_t>{1, 3, 2, 4});
    CHECK(strategy.not_proposed() == 2);
  }
  SUBCASE("times above their bounds keep it going; failures fill no slot") {
    BoundOrder strategy(six(), 1, 1);
    const auto r =
        search::run_search(strategy, times({{0, 5.0}, {1, std::nullopt}, {2, 3.5}, {3, 3.2}, {4, 4.0}, {5, 6.0}}));
    // 1 fails, 3 takes 3.2: config 2's bound 3 can still beat that, config
    // 4's bound 4 cannot.
    CHECK(ids(r) == std::vector<std::int64_t>{1, 3, 2});
    CHECK(strategy.not_proposed() == 3);
    CHECK_FALSE(strategy.bound_violated());
  }
  CHECK_THROWS_AS(BoundOrder(six(), 0, 1), std::invalid_argument);
}

TEST_CASE("bound order proposes everything once a time undercuts its bound") {
  SUBCASE("before the cut-off closes") {
    BoundOrder strategy(six(), 2, 1);
    const auto r = search::run_search(strategy, times({{0, 5.0}, {1, 1.0}, {2, 3.0}, {3, 1.5}, {4, 4.0}, {5, 6.0}}));
    CHECK(ids(r) == std::vector<std::int64_t>{1, 3, 2, 4, 0, 5}); // still in bound order
    CHECK(strategy.not_proposed() == 0);
    CHECK(strategy.bound_violated());
  }
  SUBCASE("after it closed, by a trial still outstanding: the loop asks again") {
    BoundOrder strategy(six(), 1, 2);
    // 1 and 3 proposed; 1's time closes the cut-off (next bound 3 > 1); then
    // 3 ends at 0.5, below its bound 2, and everything left is proposed.
    const auto r = search::run_search(strategy, times({{0, 5.0}, {1, 1.0}, {2, 3.0}, {3, 0.5}, {4, 4.0}, {5, 6.0}}), {}, 2);
    CHECK(ids(r) == std::vector<std::int64_t>{1, 3, 2, 4, 0, 5});
    CHECK(strategy.not_proposed() == 0);
    CHECK(strategy.bound_violated());
  }
}

TEST_CASE("bound order ignores trials of configurations it did not propose") {
  BoundOrder strategy(six(), 1, 1);
  // A fast time with no bound here: were it counted, it would fill the top 1
  // and no bound could enter.
  strategy.observe(search::Trial{cfg(7), 0.001, "ok", ""});
  REQUIRE(strategy.next() == cfg(1));
  strategy.observe(search::Trial{cfg(1), 1.0, "ok", ""});
  CHECK(strategy.next() == std::nullopt); // bound 2 cannot beat 1
  CHECK_FALSE(strategy.bound_violated());
}
