// The host fill (description/src/fill.cpp) against the values the fill kinds
// are documented to give, computed here without fill_rule.cuh; and which
// fills have a rule the GPU's fill kernel can follow.
#include <memtune/description/fill.hpp>
#include <memtune/description/random_data.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace memtune;
using namespace memtune::description_detail;

namespace {

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
std::uint64_t bits(std::uint64_t seed, std::int64_t i) { return splitmix(splitmix(seed) ^ static_cast<std::uint64_t>(i)); }
float unit(std::uint64_t h) {
  const float magnitude = 0.01F + 0.99F * static_cast<float>((h >> 40) * (1.0 / 16777216.0));
  return (h & 1U) ? -magnitude : magnitude;
}

template <class T> std::vector<T> filled(const Fill& f, ElementType type, std::int64_t count, std::uint64_t seed) {
  const std::vector<std::byte> bytes = fill_host(f, type, count, FillRequest{{}, {}, seed});
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

} // namespace

TEST_CASE("random fills give the documented values, lane by lane") {
  constexpr std::int64_t n = 1000;
  const auto f32 = filled<float>(Fill{}, ElementType::f32, n, 7);
  const auto f64 = filled<double>(Fill{}, ElementType::f64, n, 7);
  const auto f32_range = filled<float>(Fill::random_in(-3.0, 5.0), ElementType::f32, n, 7);
  const auto f64_range = filled<double>(Fill::random_in(2.0, 2.5), ElementType::f64, n, 7);
  const auto i8 = filled<std::int8_t>(Fill::random_in(-128, 127), ElementType::i8, n, 7);
  const auto i64 = filled<std::int64_t>(Fill::random_in(-5e15, -1e15), ElementType::i64, n, 7);
  const auto u32 = filled<std::uint32_t>(Fill{}, ElementType::u32, n, 7); // the default [1, 100]
  const auto float4 = filled<float>(Fill{}, vector_type(ElementType::f32, 4), n / 4, 7);
  std::vector<float> random(n);
  fill_random(random, 7);
  for (std::int64_t i = 0; i < n; ++i) {
    CAPTURE(i);
    const std::uint64_t h = bits(7, i);
    const auto k = static_cast<std::size_t>(i);
    REQUIRE(f32[k] == unit(h));
    REQUIRE(random[k] == unit(h));
    REQUIRE(float4[k] == unit(h));
    REQUIRE(f64[k] == static_cast<double>(unit(h)));
    const double u = static_cast<double>(h >> 11) * 0x1p-53;
    REQUIRE(f32_range[k] == static_cast<float>(-3.0 + 8.0 * u));
    REQUIRE(f64_range[k] == 2.0 + 0.5 * u);
    REQUIRE(static_cast<int>(i8[k]) == -128 + static_cast<int>((static_cast<unsigned __int128>(h) * 256) >> 64));
    REQUIRE(i64[k] == static_cast<std::int64_t>(-5e15) +
                          static_cast<std::int64_t>((static_cast<unsigned __int128>(h) * 4000000000000001ULL) >> 64));
    REQUIRE(u32[k] == 1 + static_cast<std::uint32_t>((static_cast<unsigned __int128>(h) * 100) >> 64));
  }
  // The whole 64-bit range takes the bits themselves.
  const auto u64 = filled<std::uint64_t>(Fill::random_in(0, 18446744073709551615.0), ElementType::u64, 4, 3);
  for (std::int64_t i = 0; i < 4; ++i) CHECK(u64[static_cast<std::size_t>(i)] == bits(3, i));
}

TEST_CASE("a constant fill is the value in the element's type; sum_abs scales to the sum") {
  Fill c;
  c.kind = Fill::Kind::constant;
  c.value = -2.5;
  for (const float v : filled<float>(c, ElementType::f32, 5, 1)) CHECK(v == -2.5F);
  for (const std::int16_t v : filled<std::int16_t>(c, ElementType::i16, 5, 1)) CHECK(v == -2);
  Fill taps;
  taps.sum_abs = 1.0;
  double total = 0;
  for (const float v : filled<float>(taps, ElementType::f32, 21, 1)) total += std::abs(static_cast<double>(v));
  CHECK(total == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("the GPU can follow random and constant fills of float, double and integer lanes; the host does the rest") {
  const auto rule = fill_rule(Fill{}, vector_type(ElementType::f32, 2), 10, 5);
  REQUIRE(rule);
  CHECK(rule->values == 20); // lanes
  CHECK(rule->lane_bytes == 4);
  std::vector<float> out(20);
  apply_fill_rule(*rule, out.data());
  CHECK(out == filled<float>(Fill{}, vector_type(ElementType::f32, 2), 10, 5));
  CHECK(fill_rule(Fill::random_in(1, 9), ElementType::u8, 10, 5)->lane_bytes == 1);

  Fill taps;
  taps.sum_abs = 1.0;
  CHECK_FALSE(fill_rule(taps, ElementType::f32, 10, 5)); // a sum over every value first
  CHECK_FALSE(fill_rule(Fill{}, ElementType::f16, 10, 5));
  CHECK_FALSE(fill_rule(Fill{}, ElementType::bf16, 10, 5));
  Fill custom;
  custom.kind = Fill::Kind::custom;
  custom.custom = [](const FillRequest&, std::span<std::byte>) {};
  CHECK_FALSE(fill_rule(custom, ElementType::f32, 10, 5));
}
