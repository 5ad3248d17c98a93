#pragma once
// Small spaces and objectives shared by the search tests.
#include <memtune/search/run_search.hpp>
#include <memtune/search/space.hpp>

#include <cmath>

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
