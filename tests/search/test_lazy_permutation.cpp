#include <memtune/search/lazy_permutation.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <set>
#include <vector>

using namespace memtune::search;

TEST_CASE("a lazy permutation draws every element once, then nothing, for any size") {
  for (const std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{1000}, std::size_t{65537}}) {
    std::mt19937_64 engine(5);
    LazyPermutation p(n, engine);
    std::vector<std::size_t> drawn;
    while (auto i = p.next()) drawn.push_back(*i);
    CHECK(drawn.size() == n);
    CHECK(p.drawn() == n);
    std::vector<std::size_t> sorted = drawn;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) REQUIRE(sorted[i] == i);
    if (n >= 1000) CHECK_FALSE(std::is_sorted(drawn.begin(), drawn.end()));
    CHECK_FALSE(p.next().has_value());
  }
  std::mt19937_64 engine(1);
  LazyPermutation empty(0, engine);
  CHECK_FALSE(empty.next().has_value());
}

TEST_CASE("a lazy permutation of 2^40 is reproducible for a seed, differs across seeds and stays in range") {
  auto first = [](std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    LazyPermutation p(std::size_t{1} << 40, engine); // far too many to list
    std::vector<std::size_t> out;
    for (int k = 0; k < 1000; ++k) out.push_back(*p.next());
    return out;
  };
  const auto a = first(1);
  CHECK(a == first(1));
  CHECK(a != first(2));
  CHECK(std::set<std::size_t>(a.begin(), a.end()).size() == a.size());
  for (const std::size_t i : a) CHECK(i < (std::size_t{1} << 40));
}

TEST_CASE("on a large range, the draws spread like uniform ones") {
  // n just above a power of two, the worst case for cycle walking. The first
  // 64 draws of 500 seeds: 32000 values in 8 equal buckets, 4000 +- 4 sd (250).
  const std::size_t n = (std::size_t{1} << 20) + 3;
  std::array<int, 8> bucket{};
  std::array<int, 2> parity{};
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    std::mt19937_64 engine(seed);
    LazyPermutation p(n, engine);
    for (int k = 0; k < 64; ++k) {
      const std::size_t x = *p.next();
      ++bucket[x * 8 / n];
      ++parity[x % 2];
    }
  }
  for (const int b : bucket) CHECK(std::abs(b - 4000) < 250);
  CHECK(std::abs(parity[0] - 16000) < 360);
}
