#include "spaces.hpp"

#include <memtune/search/random_search.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <set>

using namespace memtune::search;


TEST_CASE("random search proposes each valid config exactly once") {
  const Space s = testing::medium_space();
  std::mt19937_64 engine(3);
  RandomSearch random(s, engine);
  const auto order = testing::drain(random);
  CHECK(order.size() == s.enumerate().size());
  const std::set<Config> unique(order.begin(), order.end());
  CHECK(unique.size() == order.size());
  for (const Config& c : order) CHECK(s.is_valid(c));
  CHECK(order != s.enumerate()); // shuffled, not grid order
}

TEST_CASE("random search is reproducible for a seed and varies across seeds") {
  const Space s = testing::medium_space();
  std::mt19937_64 e1(42), e2(42), e3(43);
  RandomSearch a(s, e1), b(s, e2), c(s, e3);
  const auto ra = testing::drain(a), rb = testing::drain(b), rc = testing::drain(c);
  CHECK(ra == rb);
  CHECK(ra != rc);
}

TEST_CASE("random search keeps its historical order on small spaces") {
  // Pinned from the shuffle memtune always did (Fisher-Yates over the valid
  // configs with uniform_index): a seed names the same run as before.
  const Space s = testing::small_space();
  std::mt19937_64 engine(1);
  RandomSearch random(s, engine);
  const auto order = testing::drain(random);
  REQUIRE(order.size() == 22);
  CHECK(s.format(order[0]) == "block_size=512 items=2 layout=aos");
  CHECK(s.format(order[1]) == "block_size=64 items=4 layout=soa");
  CHECK(s.format(order[21]) == "block_size=64 items=2 layout=aos");
}

TEST_CASE("random search samples a 10^7 space without listing it: valid, distinct, reproducible") {
  const Space s = testing::huge_space();
  auto first = [&](std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    RandomSearch random(s, engine);
    std::vector<Config> out;
    for (int k = 0; k < 5000; ++k) out.push_back(*random.next());
    return out;
  };
  const auto a = first(1);
  CHECK(a == first(1));
  CHECK(a != first(2));
  CHECK(std::set<Config>(a.begin(), a.end()).size() == a.size());
  std::size_t high_a = 0;
  for (const Config& c : a) {
    CHECK(s.is_valid(c));
    high_a += c.at("a") >= 6 ? 1 : 0;
  }
  // Uniform over the valid configs: P(a >= 6) = (9+8+7+6+5) / 85 = 0.41.
  CHECK(std::abs(static_cast<double>(high_a) / 5000.0 - 35.0 / 85.0) < 0.03);
}

TEST_CASE("random search exhausts a large space with few valid configs") {
  Space s;
  const std::vector<std::int64_t> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) s.add(Axis::ordinal(name, ten)); // 10^6
  s.require((axis("c") + axis("d") + axis("e") + axis("f") <= 4).because("only the corner"));
  s.require((axis("a") <= 2).because("only the corner"));
  // a in {1, 2}, c = d = e = f = 1, any b: 20 of 10^6.
  std::mt19937_64 engine(2);
  RandomSearch random(s, engine);
  const auto order = testing::drain(random);
  CHECK(order.size() == 20);
  CHECK(std::set<Config>(order.begin(), order.end()).size() == 20);
}
