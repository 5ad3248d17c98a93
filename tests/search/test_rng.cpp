#include <memtune/search/rng.hpp>

#include <doctest/doctest.h>

#include <array>
#include <stdexcept>

using namespace memtune::search;

TEST_CASE("uniform_index stays in range and hits every value about equally") {
  std::mt19937_64 engine(7);
  std::array<int, 6> counts{};
  for (int i = 0; i < 60000; ++i) {
    const auto k = uniform_index(engine, 6);
    REQUIRE(k < 6);
    ++counts[k];
  }
  for (int c : counts) CHECK(c == doctest::Approx(10000).epsilon(0.05));
  CHECK_THROWS_AS((void)uniform_index(engine, 0), std::invalid_argument);
  CHECK(uniform_index(engine, 1) == 0);
}

TEST_CASE("uniform01 is in [0, 1) with mean one half") {
  std::mt19937_64 engine(11);
  double sum = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const double u = uniform01(engine);
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(sum / 20000 == doctest::Approx(0.5).epsilon(0.02));
}

TEST_CASE("draws depend only on the engine's standard-defined output") {
  // mt19937_64's sequence is fixed by the standard (its 10000th output is
  // 9981545732273789042), so these values must be the same with any library.
  std::mt19937_64 reference;
  reference.discard(9999);
  REQUIRE(reference() == 9981545732273789042ULL);
  std::mt19937_64 a(5489u);
  std::mt19937_64 b(5489u);
  const std::uint64_t first = b();
  CHECK(uniform_index(a, 1000) == first % 1000);
  CHECK(uniform01(a) == static_cast<double>(b() >> 11) * 0x1.0p-53);
}
