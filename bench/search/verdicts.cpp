// The benchmark's verdict lines and batch-size table (verdicts.hpp): medians
// of evaluations to 5% against the benchmark's bars, with random search's exact
// median and Kernel Tuner's results where given.
#include "verdicts.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <optional>
#include <utility>

namespace memtune::bench {
namespace {

// Median evaluations for a uniformly random order of `configs` to first hit
// one of `good`: the smallest k with P(hit within k) >= 1/2, where
// P(miss k times) = prod_{i<k} (configs - good - i) / (configs - i).
std::size_t random_median_to_hit(std::size_t configs, std::size_t good) {
  double miss = 1.0;
  for (std::size_t k = 1; k <= configs; ++k) {
    miss *= static_cast<double>(configs - good - (k - 1)) / static_cast<double>(configs - (k - 1));
    if (miss <= 0.5) return k;
  }
  return configs;
}

double median_to5(const Row& r) { return summarize(r.to5).median; }

// Kernel Tuner's median evaluations to 5% for `strategy` on the recording with
// the same file name; nullopt when absent, +inf when never reached (null).
std::optional<double> kernel_tuner_to5(const nlohmann::json& kt, const std::string& recording,
                                       const std::string& strategy) {
  if (!kt.contains("results")) return std::nullopt;
  const auto name = std::filesystem::path(recording).filename();
  for (const auto& r : kt["results"]) {
    if (r.value("strategy", "") != strategy ||
        std::filesystem::path(r.value("recording", "")).filename() != name)
      continue;
    const auto& m = r["evaluations_to_within_5pct"]["median"];
    return m.is_null() ? std::numeric_limits<double>::infinity() : m.get<double>();
  }
  return std::nullopt;
}

} // namespace

// The bar, one line per criterion, recording and model-based strategy.
void print_verdicts(const std::vector<Row>& rows, const nlohmann::json& kt,
                    const std::map<std::string, std::string>& no_prior) {
  auto find = [&](const std::string& recording, const std::string& strategy) -> const Row* {
    for (const Row& r : rows)
      if (r.recording == recording && r.strategy == strategy) return &r;
    return nullptr;
  };
  auto verdict = [](bool pass) { return pass ? "PASS" : "FAIL"; };
  std::vector<std::string> seen;
  for (const Row& r : rows) {
    if (std::find(seen.begin(), seen.end(), r.recording) != seen.end()) continue;
    seen.push_back(r.recording);
    const Row* random = find(r.recording, "random");
    const auto kt_bayes = kernel_tuner_to5(kt, r.recording, "kt:bayes_opt");
    bool header = false;
    for (const std::string name : {"bayes", "bayes+model"}) {
      const Row* bayes = find(r.recording, name);
      if (!bayes) {
        if (name == "bayes+model" && no_prior.count(r.recording) && header)
          std::printf("  bayes+model: not run (%s)\n", no_prior.at(r.recording).c_str());
        continue;
      }
      if (!header) std::printf("\nverdict %s\n", r.recording.c_str()), header = true;
      const char* n = name.c_str();
      const double b = median_to5(*bayes);
      const double share = 100.0 * b / static_cast<double>(bayes->configs);
      std::printf("  %s evals to 5%%: %.1f = %.1f%% of the grid's %zu (bar <= 15%%): %s\n", n, b, share,
                  bayes->configs, verdict(share <= 15.0));
      if (random) {
        const double rm = median_to5(*random);
        const double ratio = rm / b;
        // Nothing takes fewer than 1 evaluation: where random needs <= 2, a
        // ratio of 2 is out of reach (or needs bayes's every median run to hit at once).
        const char* v = rm <= 2.0 ? "n/a (random's median <= 2 evaluations: a 2x ratio cannot be measured)"
                                  : verdict(ratio >= 2.0);
        std::printf("  random / %s evals to 5%%: %.1f / %.1f = %.2fx (bar >= 2x): %s\n", n, rm, b, ratio, v);
      }
      if (kt_bayes) {
        std::printf("  %s vs Kernel Tuner bayes_opt evals to 5%%: %.1f vs %.1f (bar: no more): %s\n", n, b, *kt_bayes,
                    verdict(b <= *kt_bayes));
      } else if (!kt.is_null()) {
        std::printf("  %s vs Kernel Tuner bayes_opt: no kt:bayes_opt result for this recording\n", n);
      }
    }
    if (header && random) {
      // Random's 30-seed median is itself noisy; its exact median says how lucky the draws were.
      std::printf("  (%zu of %zu configs lie within 5%%: random search's exact median is %zu evaluations)\n",
                  random->within5, random->configs, random_median_to_hit(random->configs, random->within5));
    }
  }
}

// Evaluations to 5% per batch size, one line per recording and model-based
// strategy, and the bar: batch 4 at most 1.5x the sequential evaluations.
void print_batch_table(const std::vector<Row>& rows, const std::vector<std::size_t>& batch_sizes) {
  std::printf("\nevaluations to within 5%% of the optimum by batch size (parallel workers), median [IQR]\n");
  std::printf("%-28s %-12s", "recording", "strategy");
  for (const std::size_t q : batch_sizes) std::printf(" %16s", ("q=" + std::to_string(q)).c_str());
  std::printf("  q=4 / q=1 (bar <= 1.5x)\n");
  std::vector<std::pair<std::string, std::string>> seen;
  for (const Row& r : rows) {
    const std::string base = r.strategy.substr(0, r.strategy.find(' '));
    if (base != "bayes" && base != "bayes+model") continue;
    if (std::find(seen.begin(), seen.end(), std::pair(r.recording, base)) != seen.end()) continue;
    seen.emplace_back(r.recording, base);
    const std::string shown =
        r.recording.size() > 28 ? "..." + r.recording.substr(r.recording.size() - 25) : r.recording;
    std::printf("%-28s %-12s", shown.c_str(), base.c_str());
    std::optional<double> one, four;
    for (const std::size_t q : batch_sizes) {
      const std::string name = q == 1 ? base : base + " q=" + std::to_string(q);
      const auto it = std::find_if(rows.begin(), rows.end(),
                                   [&](const Row& x) { return x.recording == r.recording && x.strategy == name; });
      if (it == rows.end()) {
        std::printf(" %16s", "-");
        continue;
      }
      std::printf(" %16s", cell(summarize(it->to5), 1).c_str());
      if (q == 1) one = median_to5(*it);
      if (q == 4) four = median_to5(*it);
    }
    if (one && four)
      std::printf("  %.1f / %.1f = %.2fx: %s", *four, *one, *four / *one, *four <= 1.5 * *one ? "PASS" : "FAIL");
    std::printf("\n");
  }
}

} // namespace memtune::bench
