#include "step_cost.hpp"

#include <memtune/search/factory.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <time.h>

namespace memtune::bench {

search::Space step_cost_space() {
  search::Space s;
  for (const char* name : {"a", "b", "c", "d", "e"}) s.add(search::Axis::ordinal(name, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  return s;
}

search::Trial step_cost_objective(const search::Config& c) {
  const std::array<double, 5> centre{6.3, 2.1, 7.7, 4.4, 1.2};
  double t = 1.0, k = 0;
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    const double d = (static_cast<double>(c.at(name)) - centre[static_cast<std::size_t>(k)]) / 3.0;
    t += (0.3 + 0.1 * k) * d * d + 0.05 * std::sin(3.0 * d * (k + 1.0));
    ++k;
  }
  return {c, 1e-3 * t, "ok", ""};
}

namespace {

// CPU time of this thread [ms]: a shared machine's wall clock measures the neighbours.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

} // namespace

StepCost measure_step_cost(const search::Space& space, const search::Objective& objective,
                           const std::vector<std::size_t>& at, const search::StrategyOptions& options) {
  const std::size_t most = *std::max_element(at.begin(), at.end());
  std::mt19937_64 engine(1);
  const auto strategy = search::make_strategy("bayes", space, engine, options);
  std::vector<double> ms;
  double cpu = 0.0;
  while (ms.size() < most + 5) {
    const double t0 = thread_cpu_ms();
    const auto config = strategy->next();
    const double t1 = thread_cpu_ms();
    cpu += (t1 - t0) / 1e3;
    if (!config) break;
    ms.push_back(t1 - t0);
    const search::Trial trial = objective(*config);
    const double t2 = thread_cpu_ms();
    strategy->observe(trial);
    cpu += (thread_cpu_ms() - t2) / 1e3;
  }
  StepCost out;
  out.cpu_s = cpu;
  out.proposals = ms.size();
  for (const std::size_t n : at) {
    if (n + 5 > ms.size()) {
      out.ms.push_back(std::nullopt);
      out.mean_ms.push_back(0.0);
      continue;
    }
    std::vector<double> window(ms.begin() + static_cast<std::ptrdiff_t>(n - 4), ms.begin() + static_cast<std::ptrdiff_t>(n + 5));
    std::nth_element(window.begin(), window.begin() + 4, window.end());
    out.ms.push_back(window[4]);
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) sum += ms[k];
    out.mean_ms.push_back(sum / static_cast<double>(n));
  }
  return out;
}

void print_step_cost_header(const std::vector<std::size_t>& at) {
  std::printf("\nbayes step cost (one core, seed 1): CPU ms per proposal at n observations, median of n-4..n+4 "
              "(mean of all proposals up to n, refits amortised), and the run's CPU\n");
  std::printf("%-28s %7s", "space", "configs");
  for (const std::size_t n : at) std::printf(" %18s", ("n=" + std::to_string(n)).c_str());
  std::printf(" %14s\n", "CPU/run [s]");
}

void print_step_cost_row(const std::string& name, std::size_t configs, const std::vector<std::size_t>& at,
                         const StepCost& cost) {
  const std::string shown = name.size() > 28 ? "..." + name.substr(name.size() - 25) : name;
  std::printf("%-28s %7zu", shown.c_str(), configs);
  for (std::size_t k = 0; k < at.size(); ++k) {
    char buf[64] = "-";
    if (cost.ms[k]) std::snprintf(buf, sizeof buf, "%.2f (%.2f)", *cost.ms[k], cost.mean_ms[k]);
    std::printf(" %18s", buf);
  }
  std::printf(" %8.2f (%zu)\n", cost.cpu_s, cost.proposals);
}

} // namespace memtune::bench
