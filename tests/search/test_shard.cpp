#include "spaces.hpp"

#include <memtune/search/factory.hpp>
#include <memtune/search/grid.hpp>
#include <memtune/search/random_search.hpp>
#include <memtune/search/shard.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

using namespace memtune::search;

namespace {

Space sharded(Space s, Shard shard) {
  s.restrict_to(shard);
  return s;
}

} // namespace

TEST_CASE("shards parse as I/N, counting from 1, and refuse anything else") {
  CHECK(Shard::parse("2/4") == Shard{2, 4});
  CHECK(Shard::parse("1/1").whole());
  CHECK(Shard::parse("4/4").to_string() == "4/4");
  for (const char* bad : {"0/4", "5/4", "2/0", "2", "/4", "2/", "a/4", "2/4x", "-1/4", "2/-4", "1/99999999999", ""})
    CHECK_THROWS_AS(Shard::parse(bad), std::invalid_argument);
  CHECK_THROWS_WITH_AS(Shard::parse("0/4"), doctest::Contains("count from 1"), std::invalid_argument);
}

TEST_CASE("N shards are disjoint and together hold every valid config, for any N") {
  const Space whole = testing::medium_space();
  const auto all = whole.enumerate();
  for (const std::uint32_t n : {1U, 2U, 3U, 4U, 7U, 16U}) {
    std::map<Config, int> owners;
    for (std::uint32_t i = 1; i <= n; ++i)
      for (const Config& c : sharded(whole, Shard{i, n}).enumerate()) ++owners[c];
    CHECK(owners.size() == all.size()); // complete
    for (const auto& [config, count] : owners) CHECK(count == 1); // disjoint
  }
}

TEST_CASE("a shard's grid is the whole grid's order with the other shards' configs left out") {
  const Space whole = testing::medium_space();
  const auto all = whole.enumerate();
  const Shard shard{3, 4};
  const Space part = sharded(whole, shard);
  GridSearch part_grid(part);
  std::vector<Config> expected;
  std::copy_if(all.begin(), all.end(), std::back_inserter(expected), [&](const Config& c) { return shard.contains(c); });
  CHECK(testing::drain(part_grid) == expected);
}

TEST_CASE("shard membership depends on the config alone: stable under resume, axis order, new constraints and seeds") {
  const Space whole = testing::medium_space();
  Space reordered;
  for (auto it = whole.axes().rbegin(); it != whole.axes().rend(); ++it) reordered.add(*it);
  for (const Constraint& c : whole.constraints()) reordered.require(c);
  reordered.require((axis("padding") <= 4).because("a constraint added later"));
  const Shard shard{2, 5};
  const Space a = sharded(whole, shard), b = sharded(reordered, shard);
  for (const Config& c : b.enumerate()) CHECK(a.is_valid(c)); // same shard in both spaces
  // Random with any seed only reorders the shard; a restarted run sees the same part.
  for (const std::uint64_t seed : {1, 2}) {
    std::mt19937_64 engine(seed);
    RandomSearch random(a, engine);
    const auto order = testing::drain(random);
    const auto part = a.enumerate();
    CHECK(std::set<Config>(order.begin(), order.end()) == std::set<Config>(part.begin(), part.end()));
  }
}

TEST_CASE("random search with the same seed over N shards covers the whole space once, also lazily on 10^7 configs") {
  const Space whole = testing::huge_space();
  const std::uint32_t n = 3;
  // On the large space each shard's random order is the whole space's random
  // order with the other shards' configs left out: the first proposals of
  // the three shards are the first proposals of one unsharded run.
  std::mt19937_64 engine(9);
  RandomSearch unsharded(whole, engine);
  std::vector<Config> first;
  for (int k = 0; k < 300; ++k) first.push_back(*unsharded.next());
  std::set<Config> union_of_shards;
  for (std::uint32_t i = 1; i <= n; ++i) {
    const Space part = sharded(whole, Shard{i, n});
    std::mt19937_64 same_seed(9);
    RandomSearch random(part, same_seed);
    std::size_t mine = 0;
    for (const Config& c : first) mine += Shard{i, n}.contains(c) ? 1 : 0;
    for (std::size_t k = 0; k < mine; ++k) {
      const Config c = *random.next();
      CHECK(Shard{i, n}.contains(c));
      CHECK(union_of_shards.insert(c).second); // disjoint
    }
  }
  CHECK(union_of_shards == std::set<Config>(first.begin(), first.end()));
}

TEST_CASE("shards split a large space evenly") {
  Space s;
  s.add(Axis::ordinal("x", [] {
    std::vector<std::int64_t> v(100);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>(i);
    return v;
  }()));
  s.add(Axis::ordinal("y", {1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
  s.add(Axis::categorical("z", {"p", "q", "r", "s", "t", "u", "v", "w", "x", "y"}));
  const auto all = s.enumerate(); // 10^4
  for (const std::uint32_t n : {2U, 4U, 8U}) {
    std::vector<std::size_t> size(n, 0);
    for (const Config& c : all)
      for (std::uint32_t i = 1; i <= n; ++i) size[i - 1] += Shard{i, n}.contains(c) ? 1 : 0;
    const double expected = static_cast<double>(all.size()) / n;
    for (const std::size_t k : size) CHECK(std::abs(static_cast<double>(k) - expected) < 0.1 * expected);
  }
}

TEST_CASE("a sharded space says why a config is not its own, round-trips through JSON, and refuses a second shard") {
  Space s = testing::medium_space();
  s.restrict_to(Shard{1, 2});
  Config other;
  for (const Config& c : testing::medium_space().enumerate())
    if (!s.is_valid(c)) other = c;
  REQUIRE_FALSE(other.empty());
  const auto why = s.violation(other);
  REQUIRE(why.has_value());
  CHECK(why->find("not in shard 1/2") != std::string::npos);
  const Space back = Space::from_json(s.to_json());
  REQUIRE(back.shard().has_value());
  CHECK(*back.shard() == Shard{1, 2});
  CHECK(back.enumerate() == s.enumerate());
  CHECK_THROWS_AS(s.restrict_to(Shard{2, 2}), std::invalid_argument);
  Space whole = testing::medium_space();
  whole.restrict_to(Shard{1, 1}); // the whole space: nothing to record
  CHECK_FALSE(whole.shard().has_value());
  CHECK_FALSE(whole.to_json().contains("shard"));
  nlohmann::json j = s.to_json();
  j["shard"]["index"] = 3;
  CHECK_THROWS_AS(Space::from_json(j), std::invalid_argument);
}

TEST_CASE("bayes on a shard proposes only the shard's configs, never twice") {
  const Space part = sharded(testing::medium_space(), Shard{2, 3});
  std::mt19937_64 engine(4);
  auto bayes = make_strategy("bayes", part, engine);
  std::set<Config> seen;
  for (int k = 0; k < 40; ++k) {
    const auto c = bayes->next();
    REQUIRE(c.has_value());
    CHECK(Shard{2, 3}.contains(*c));
    CHECK(seen.insert(*c).second);
    bayes->observe(testing::ok_trial(*c, testing::bowl_time(*c)));
  }
}
