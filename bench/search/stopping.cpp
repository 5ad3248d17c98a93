#include "stopping.hpp"

#include "metrics.hpp"
#include "rows.hpp"

#include <memtune/search/stop_rules.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>

namespace memtune::bench {

namespace {

std::size_t parse_count(const std::string& text, const std::string& whole) {
  if (text.empty()) return 0;
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value > (std::size_t{1} << 24))
    throw std::invalid_argument("--stopping '" + whole +
                                "': expected BUDGET:PATIENCE, two counts from 0 to 16777216 (0: none)");
  return value;
}

std::vector<std::optional<double>> present(const std::vector<double>& values) {
  return {values.begin(), values.end()};
}

} // namespace

StopSetting parse_stop_setting(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
    throw std::invalid_argument("--stopping '" + text + "': expected BUDGET:PATIENCE, e.g. 180:60");
  return {parse_count(text.substr(0, colon), text), parse_count(text.substr(colon + 1), text)};
}

StoppingRow replay_stopped(const std::string& recording, const std::string& label, const std::string& strategy,
                           const search::Space& space, const search::Objective& objective,
                           const search::StrategyOptions& options, StopSetting setting, int seeds,
                           std::size_t max_evaluations, double optimum_s) {
  StoppingRow row{recording, label, setting, {}, {}};
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937_64 engine(static_cast<std::uint64_t>(seed));
    const auto search = search::make_strategy(strategy, space, engine, options);
    search::StopRules rules;
    rules.add(search::EvaluationBudget{setting.budget ? setting.budget : max_evaluations});
    if (setting.patience) rules.add(search::NoImprovement{setting.patience});
    const auto result = search::run_search(*search, objective, std::move(rules));
    row.evaluations.push_back(static_cast<double>(result.trials.size()));
    row.kept.push_back(result.best && result.best->time_s ? *result.best->time_s / optimum_s
                                                          : std::numeric_limits<double>::infinity());
  }
  return row;
}

void print_stopping_table(const std::vector<StoppingRow>& rows) {
  std::printf("%-28s %-12s %10s %16s %22s %8s %14s\n", "recording", "strategy", "budget:pat", "evaluations",
              "kept/optimum", "worst", "within 5%");
  for (const StoppingRow& r : rows) {
    const std::string shown =
        r.recording.size() > 28 ? "..." + r.recording.substr(r.recording.size() - 25) : r.recording;
    const std::string setting = std::to_string(r.setting.budget) + ":" + std::to_string(r.setting.patience);
    const double worst = r.kept.empty() ? 0.0 : *std::max_element(r.kept.begin(), r.kept.end());
    const auto within = std::count_if(r.kept.begin(), r.kept.end(), [](double k) { return k <= 1.05; });
    std::printf("%-28s %-12s %10s %16s %22s %8.3f %8ld of %3zu\n", shown.c_str(), r.strategy.c_str(), setting.c_str(),
                cell(summarize(present(r.evaluations)), 0).c_str(), cell(summarize(present(r.kept)), 3).c_str(), worst,
                static_cast<long>(within), r.kept.size());
  }
}

} // namespace memtune::bench
