#pragma once
// Small spaces and objectives shared by the search tests.
#include <memtune/search/run_search.hpp>
#include <memtune/search/space.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace memtune::search::testing {

// 4 x 3 x 2 = 24 points, 22 valid: block_size * items <= 1024 rules out 512 x 4.
inline Space small_space() {
  Space s;
  s.add(Axis::ordinal("block_size", {64, 128, 256, 512}, "threads per block"));
  s.add(Axis::ordinal("items", {1, 2, 4}));
  s.add(Axis::categorical("layout", {"aos", "soa"}));
  s.require((axis("block_size") * axis("items") <= 1024).because("tile fits"));
  return s;
}

// A filter-like space of 6 x 4 x 5 x 2 x 2 = 480 points (460 valid).
inline Space medium_space() {
  Space s;
  s.add(Axis::ordinal("block_size", {32, 64, 128, 256, 512, 1024}));
  s.add(Axis::ordinal("items", {1, 2, 4, 8}));
  s.add(Axis::ordinal("padding", {0, 1, 2, 4, 8}));
  s.add(Axis::categorical("packing", {"float", "float2"}));
  s.add(Axis::categorical("bank_mode", {"4B", "8B"}));
  s.require((axis("block_size") * axis("items") <= 4096).because("tile fits"));
  return s;
}

// 7 axes of 10 values: 10^7 points, too many to list (a std::vector<Config>
// of them is several GB). 6 ordinal axes 1..10 and a categorical one;
// a + b <= 15 rules out 15 of each 100 (a, b) pairs: 8.5 million valid.
inline Space huge_space() {
  Space s;
  const std::vector<std::int64_t> ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) s.add(Axis::ordinal(name, ten));
  s.add(Axis::categorical("g", {"g0", "g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8", "g9"}));
  s.require((axis("a") + axis("b") <= 15).because("a and b share a budget"));
  return s;
}
inline constexpr std::size_t kHugeSpaceValid = 8'500'000;

// A bowl over huge_space with its minimum at a=b=c=d=e=f=4, g=g3 (time 1e-4 s).
inline double huge_bowl_time(const Config& c) {
  double e = 0.0;
  for (const char* name : {"a", "b", "c", "d", "e", "f"}) {
    const double d = static_cast<double>(c.at(name) - 4);
    e += 0.02 * d * d;
  }
  if (c.at("g") != 3) e += 0.2;
  return 1e-4 * std::exp(e);
}

// A smooth bowl in log2 coordinates with its minimum at block 256, items 4,
// padding 2, float2, 8B; time [s] ~ 1e-4 * exp(bowl).
inline double bowl_time(const Config& c) {
  const double b = std::log2(static_cast<double>(c.at("block_size"))) - 8.0;
  const double i = std::log2(static_cast<double>(c.at("items"))) - 2.0;
  const double p = static_cast<double>(c.at("padding")) - 2.0;
  double e = 0.08 * b * b + 0.15 * i * i + 0.01 * p * p;
  if (c.at("packing") == 0) e += 0.3;
  if (c.at("bank_mode") == 0) e += 0.1;
  return 1e-4 * std::exp(e);
}

// Every proposal a strategy makes, observing nothing.
inline std::vector<Config> drain(Strategy& strategy) {
  std::vector<Config> out;
  while (auto c = strategy.next()) out.push_back(*c);
  return out;
}

inline Trial ok_trial(const Config& c, double time_s) {
  Trial t;
  t.config = c;
  t.time_s = time_s;
  return t;
}

inline Trial failed_trial(const Config& c, std::string status = "compile_failed") {
  Trial t;
  t.config = c;
  t.status = std::move(status);
  return t;
}

} // namespace memtune::search::testing
