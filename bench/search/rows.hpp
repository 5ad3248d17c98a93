#pragma once
// A benchmark row (one recording, strategy and batch size, over the seeds)
// and its table cell, shared by the main table (search_bench.cpp) and the
// verdict lines and batch table (verdicts.cpp).
#include "metrics.hpp"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace memtune::bench {

struct Row {
  std::string recording, strategy;
  std::size_t configs = 0;
  double optimum_s = 0.0;
  std::vector<std::optional<double>> to5, to1, at10, at20;
  double seconds_per_run = 0.0;
  std::size_t within5 = 0; // recorded configs within 5% of the optimum
  std::size_t batch = 1;    // parallel workers replayed (bayes rows only)
  bool marks_measured = true; // at10/at20 taken (false: the 20% mark lies past --max-evaluations)
  std::vector<std::vector<std::optional<double>>> best_so_far; // per seed: best / optimum after k evaluations
};

// "median [q1-q3]" at `precision` decimals ("inf" for a run that never got there).
inline std::string cell(const bench::Summary& s, int precision) {
  auto num = [&](double x) {
    if (std::isinf(x)) return std::string("inf");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", precision, x);
    return std::string(buf);
  };
  return num(s.median) + " [" + num(s.q1) + "-" + num(s.q3) + "]";
}

} // namespace memtune::bench
