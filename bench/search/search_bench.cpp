// memtune_search_bench: how fast each strategy finds the optimum of recorded
// spaces, replaying the recorded times (no GPU).
//
//   memtune_search_bench bench/data/synthetic_space.json [--seeds 30] [--json]
//                        [--strategies grid,random,bayes,bayes+model] [--bayes-initial N] [--bayes-xi X] [--bayes-no-feasibility]
//                        [--bayes-refit-every-below N] [--bayes-acquisition ei|hedge] [--bayes-min-length-scale L]
//                        [--bayes-hedge-eta E] [--bayes-lcb-kappa K]
//                        [--kernel-tuner kt.json] [--batch-sizes 1,2,4,8] [--bayes-fantasy kb|cl]
//
// --json adds, per strategy, the quartiles over the seeds of the best so far /
// optimum after each evaluation ("best_so_far"), which `memtune report` plots.
//
// Per recording and strategy, over the seeds: evaluations until the best so far
// is within 5% and within 1% of the recording's optimum, and the best found
// (as time / optimum) after 10% and 20% of the grid's evaluations (the number
// of valid configs). Each run stops once it is within 1% and past the 20%
// mark, or when the space is exhausted.
//
// `bayes+model` is bayes with the analytical model's prediction as the prior
// mean: the recording's device is looked up in the target catalogue (by name,
// e.g. "NVIDIA H100 80GB HBM3" -> h100-sxm), and the prior comes from
// model_prior.hpp for a template (its problem from the recording) or
// probe/prior.hpp for a probe's space. A recording with no such model (an
// unknown device, as the synthetic one) gets no bayes+model row.
//
// --batch-sizes replays bayes and bayes+model as that many parallel workers
// (search::run_search with `workers`): the strategy keeps q proposals
// outstanding and each trial counts as one evaluation, in observation order.
// Their rows are named "bayes q=4"; a last table gives evaluations to 5% per
// batch size and the bar: batch 4 needs at most 1.5x batch 1's evaluations.
// --batch-table-only runs only those (bayes and bayes+model), each run
// stopped once within 5% of the optimum, and prints only that table: the
// other metrics would need every run to go on to 1% and past 20% of the grid,
// the most expensive part of a bayes run.
//
// Only fully recorded spaces are replayed: a recording that lacks some valid
// config (a --budget or bayes run, or a space of millions of configurations
// described in a few lines) is refused with the counts, at once, without
// listing the space.
//
// With both random and bayes run, each recording ends with the bar as
// verdict lines, for bayes and bayes+model: median evaluations to 5% as a
// share of the grid (<= 15%), random's median over theirs (>= 2; not
// measurable where random's median is <= 2 evaluations), and, given the JSON
// of kernel_tuner_compare.py --json (--kernel-tuner), against Kernel Tuner's
// bayes_opt on the same recording (no more evaluations).
#include "metrics.hpp"

#include <memtune/io/errors.hpp>
#include <memtune/model_prior.hpp>
#include <memtune/probe/prior.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/grid_cursor.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/search/run_search.hpp>
#include <memtune/targets.hpp>
#include <memtune/templates/catalogue.hpp>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <ctime>
#include <time.h>
#include <random>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace memtune;

// Stops a benchmark run once nothing more can change its metrics.
class MetricsComplete final : public search::StopRule {
public:
  MetricsComplete(double target_s, std::size_t min_evaluations) : target_(target_s), min_(min_evaluations) {}
  std::optional<std::string> check(const search::SearchProgress& p) override {
    if (p.evaluations >= min_ && p.best_time_s && *p.best_time_s <= target_) return "metrics complete";
    return std::nullopt;
  }

private:
  double target_;
  std::size_t min_;
};

struct Row {
  std::string recording, strategy;
  std::size_t configs = 0;
  double optimum_s = 0.0;
  std::vector<std::optional<double>> to5, to1, at10, at20;
  double seconds_per_run = 0.0;
  std::size_t within5 = 0; // recorded configs within 5% of the optimum
  std::size_t batch = 1;    // parallel workers replayed (bayes rows only)
  std::vector<std::vector<std::optional<double>>> best_so_far; // per seed: best / optimum after k evaluations
};

// Per evaluation k, the quartiles over the seeds of best so far / optimum (a
// run that stopped early keeps its last value): the report's trajectory.
nlohmann::json best_so_far_json(const Row& r) {
  std::size_t longest = 0;
  for (const auto& run : r.best_so_far) longest = std::max(longest, run.size());
  nlohmann::json median = nlohmann::json::array(), q1 = nlohmann::json::array(), q3 = nlohmann::json::array();
  auto num = [](double x) { return std::isinf(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
  for (std::size_t k = 0; k < longest; ++k) {
    std::vector<std::optional<double>> at;
    for (const auto& run : r.best_so_far)
      at.push_back(run.empty() ? std::nullopt : run[std::min(k, run.size() - 1)]);
    const bench::Summary s = bench::summarize(at);
    median.push_back(num(s.median));
    q1.push_back(num(s.q1));
    q3.push_back(num(s.q3));
  }
  return {{"median", median}, {"q1", q1}, {"q3", q3}};
}

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

std::string cell(const bench::Summary& s, int precision) {
  auto num = [&](double x) {
    if (std::isinf(x)) return std::string("inf");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", precision, x);
    return std::string(buf);
  };
  return num(s.median) + " [" + num(s.q1) + "-" + num(s.q3) + "]";
}

nlohmann::json to_json(const bench::Summary& s, const std::vector<std::optional<double>>& runs) {
  auto num = [](double x) { return std::isinf(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
  nlohmann::json values = nlohmann::json::array();
  for (const auto& r : runs) values.push_back(r ? nlohmann::json(*r) : nlohmann::json(nullptr));
  return {{"median", num(s.median)}, {"q1", num(s.q1)}, {"q3", num(s.q3)}, {"missing", s.missing}, {"runs", values}};
}

double median_to5(const Row& r) { return bench::summarize(r.to5).median; }

// The number of valid configs, which must all be recorded: the metrics need
// the optimum and the grid's size. Throws std::runtime_error naming the file
// and the counts otherwise. Walks the grid only as far as one config past
// the recorded ones (and at most Space::kEnumerateLimit points), so a space
// of 10^7 configs recorded in 12 trials is refused at once.
std::size_t recorded_space_size(const search::Recording& rec, const std::string& file) {
  const std::size_t cross = rec.space.cross_product_size();
  const std::string refused = file + ": the recording holds " + std::to_string(rec.trials.size()) +
                              " trials, but its space (" + std::to_string(rec.space.axes().size()) + " axes, " +
                              std::to_string(cross) + " configurations in the cross product) has ";
  const std::string why = " valid configurations; the bench replays fully recorded spaces only (record one with "
                          "--record and no --budget)";
  search::GridCursor walk(rec.space);
  std::size_t valid = 0;
  while (walk.next()) {
    if (++valid > rec.trials.size()) throw std::runtime_error(refused + "more" + why);
    // Few valid configs in a huge grid: stop walking, say how many there are about.
    if (walk.position() > search::Space::kEnumerateLimit)
      throw std::runtime_error(refused + rec.space.count_valid().describe() + why);
  }
  return valid; // == trials: every trial is a distinct valid config (load_recording checks)
}

// The analytical model's log(time [s]) per config of the recording, on the
// catalogue target named by the recording's device; `why_not` says why there
// is none.
std::optional<std::function<double(const search::Config&)>> recording_prior(const search::Recording& rec,
                                                                              std::string& why_not) {
  const std::string device = rec.device.value("name", "");
  const model::TargetCatalog catalog = load_targets();
  const Target* target = catalog.try_find(device);
  if (!target) {
    why_not = "device '" + device + "' is not in the target catalogue";
    return std::nullopt;
  }
  Problem problem;
  for (const auto& [name, value] : rec.problem.items())
    if (value.is_number_integer()) problem[name] = value.get<std::int64_t>();
  if (auto prior = probe::probe_prior(rec.template_name, problem, *target)) return prior;
  const KernelDescription* kernel = nullptr;
  for (const KernelDescription* k : templates::descriptions())
    if (k->name == rec.template_name && k->has_model()) kernel = k;
  if (!kernel) {
    why_not = "no model for template '" + rec.template_name + "'";
    return std::nullopt;
  }
  problem = kernel->complete(problem);
  return model_prior(*kernel, problem, *target, rec.space);
}

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
      std::printf(" %16s", cell(bench::summarize(it->to5), 1).c_str());
      if (q == 1) one = median_to5(*it);
      if (q == 4) four = median_to5(*it);
    }
    if (one && four)
      std::printf("  %.1f / %.1f = %.2fx: %s", *four, *one, *four / *one, *four <= 1.5 * *one ? "PASS" : "FAIL");
    std::printf("\n");
  }
}


// A smooth 10^5-configuration space (5 ordinal axes of 10 values, no
// constraints) with one narrow basin and a ridge of near-misses: enough
// configurations for a Bayesian run of 2,000 observations, the step-cost
// table's last column, with a cost a recording cannot reach.
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

// One sequential bayes run (seed 1) of up to max(observations) proposals:
// CPU milliseconds per proposal around each n (the median of the 9 proposals
// made at n - 4 .. n + 4 observations; refits included when they fall there)
// and the CPU seconds of the whole run, the evaluations excluded.
// CPU time of this thread [ms]: a shared machine's wall clock measures the neighbours.
double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

struct StepCost {
  std::vector<std::optional<double>> ms;  // per requested n; nullopt when the space ran out first
  std::vector<double> mean_ms;            // per requested n: the mean of all proposals up to n (refits amortised)
  double cpu_s = 0.0;
  std::size_t proposals = 0;
};

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

} // namespace

static int bench_main(int argc, char** argv) {
  CLI::App app{"Search efficiency of memtune's strategies on recorded spaces (no GPU needed)"};
  std::vector<std::string> files;
  std::vector<std::string> strategies = search::strategy_names();
  strategies.push_back("bayes+model");
  int seeds = 30;
  bool json = false;
  search::StrategyOptions options;
  app.add_option("recordings", files, "memtune recording JSON files")->required()->check(CLI::ExistingFile);
  app.add_option("--strategies", strategies, "strategies to compare (grid, random, bayes, bayes+model)")->delimiter(',');
  app.add_option("--seeds", seeds, "runs per strategy (seeds 1..N)")->check(CLI::Range(1, 10000));
  app.add_flag("--json", json, "print JSON instead of a table");
  app.add_option("--bayes-initial", options.bayes.initial_points, "bayes: size of the initial design (0: 2 x axes, >= 5)");
  app.add_option("--bayes-xi", options.bayes.xi, "bayes: EI margin, in spreads of the observed log-times");
  app.add_flag("!--bayes-no-feasibility", options.bayes.use_feasibility, "bayes: do not multiply EI by P(feasible)");
  app.add_option("--bayes-refit-every-below", options.bayes.refit_every_below,
                 "bayes: refit the hyperparameters after every trial while fewer succeeded");
  std::string acquisition = "hedge";
  app.add_option("--bayes-acquisition", acquisition, "bayes: ei or hedge (GP-Hedge over EI, PI, LCB)")
      ->check(CLI::IsMember({"ei", "hedge"}));
  app.add_option("--bayes-hedge-eta", options.bayes.hedge_eta, "bayes: portfolio learning rate");
  app.add_option("--bayes-lcb-kappa", options.bayes.lcb_kappa, "bayes: LCB arm's weight on the standard deviation");
  app.add_option("--bayes-prior-tie", options.bayes.prior_tie_tolerance,
                 "bayes+model: first proposal drawn among predictions within this fraction of the fastest");
  app.add_option("--bayes-prior-design", options.bayes.prior_design_fraction,
                 "bayes+model: the first batch adds points spread over this fraction of the configs, the prior's "
                 "fastest, before the space-filling batch (1: none)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--bayes-hyper-prior-sd", options.bayes.hyperfit.log_prior_sd,
                 "bayes: MAP fit with this log-normal prior width on length scales and mismatch weights (0: ML)");
  app.add_option("--bayes-min-length-scale", options.bayes.hyperfit.bounds.min_length_scale,
                 "bayes: lower bound of the ordinal length scales (coordinates in [0, 1])");
  app.add_option("--bayes-candidate-pool", options.bayes.candidate_pool,
                 "bayes: configs sampled per proposal in a space too large to score whole")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  app.add_option("--bayes-model-points", options.bayes.model_points,
                 "bayes: successes the per-proposal posterior regresses on (sampled spaces)")
      ->check(CLI::Range(std::size_t{2}, std::size_t{1} << 16));
  std::vector<std::size_t> batch_sizes{1};
  app.add_option("--batch-sizes", batch_sizes,
                 "bayes and bayes+model: replay as this many parallel workers, one row each (e.g. 1,2,4,8)")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{1}, std::size_t{64}));
  std::string fantasy = "kb";
  app.add_option("--bayes-fantasy", fantasy,
                 "bayes batches: what an outstanding proposal is assumed to measure: kb (Kriging believer: the GP's "
                 "mean) or cl (constant liar: the best time so far)")
      ->check(CLI::IsMember({"kb", "cl"}));
  bool batch_table_only = false;
  app.add_flag("--batch-table-only", batch_table_only,
               "run bayes and bayes+model only, stop each run within 5% of the optimum, print the batch-size table");
  std::string kernel_tuner_file;
  app.add_option("--kernel-tuner", kernel_tuner_file, "JSON of kernel_tuner_compare.py --json, for the verdict lines")
      ->check(CLI::ExistingFile);
  std::vector<std::size_t> step_cost_at;
  app.add_option("--step-cost", step_cost_at,
                 "instead of the search metrics: bayes's time per proposal at these numbers of observations (e.g. "
                 "50,100,200,500,2000), on each recording and on a synthetic 10^5-configuration space")
      ->delimiter(',')
      ->check(CLI::Range(std::size_t{5}, std::size_t{100000}));
  CLI11_PARSE(app, argc, argv);
  options.bayes.acquisition =
      acquisition == "hedge" ? search::BayesOptions::Acquisition::hedge : search::BayesOptions::Acquisition::ei;
  options.bayes.fantasy = fantasy == "kb" ? search::BayesOptions::Fantasy::kriging_believer
                                          : search::BayesOptions::Fantasy::constant_liar;
  if (batch_table_only) strategies = {"bayes", "bayes+model"};
  if (std::find(batch_sizes.begin(), batch_sizes.end(), std::size_t{1}) == batch_sizes.end())
    batch_sizes.insert(batch_sizes.begin(), 1); // the sequential row every ratio is taken against

  if (!step_cost_at.empty()) {
    print_step_cost_header(step_cost_at);
    for (const auto& file : files) {
      const search::Recording rec = search::load_recording(file);
      print_step_cost_row(file, recorded_space_size(rec, file), step_cost_at,
                          measure_step_cost(rec.space, search::replay_objective(rec), step_cost_at, options));
      std::fflush(stdout);
    }
    const search::Space synthetic = step_cost_space();
    print_step_cost_row("synthetic 5 axes x 10 values", synthetic.cross_product_size(), step_cost_at,
                        measure_step_cost(synthetic, step_cost_objective, step_cost_at, options));
    return 0;
  }

  std::vector<Row> rows;
  std::map<std::string, std::string> no_prior; // recording -> why bayes+model did not run
  nlohmann::json kernel_tuner;
  try {
    if (!kernel_tuner_file.empty()) {
      std::ifstream in(kernel_tuner_file);
      kernel_tuner = nlohmann::json::parse(in);
    }
    for (const auto& file : files) {
      const search::Recording rec = search::load_recording(file);
      const auto best = rec.best();
      if (!best) throw std::runtime_error(file + ": no successful trial to measure against");
      const std::size_t configs = recorded_space_size(rec, file);
      const auto at10 = static_cast<std::size_t>(std::ceil(0.10 * static_cast<double>(configs)));
      const auto at20 = static_cast<std::size_t>(std::ceil(0.20 * static_cast<double>(configs)));
      const search::Objective objective = search::replay_objective(rec);
      std::optional<std::function<double(const search::Config&)>> prior;
      if (std::find(strategies.begin(), strategies.end(), "bayes+model") != strategies.end()) {
        std::string why_not;
        const auto started = std::chrono::steady_clock::now();
        try {
          prior = recording_prior(rec, why_not);
        } catch (const std::exception& e) {
          // A recording older than its template's space (an axis it lacks, a
          // value it has no more): replayed without the model, with the reason.
          prior.reset();
          why_not = std::string("the template's model does not fit the recorded space: ") + e.what();
        }
        if (!prior) no_prior[file] = why_not;
        std::cerr << file << ": model prior " << (prior ? "computed" : "unavailable: " + why_not) << " ("
                  << std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() << " s)\n";
      }
      for (const auto& name : strategies) {
        search::StrategyOptions strategy_options = options;
        if (name == "bayes+model") {
          if (!prior) continue;
          strategy_options.bayes.prior_mean = *prior;
        }
        const std::string strategy_name = name == "bayes+model" ? "bayes" : name;
        // Grid and random never learn, so workers change nothing for them: one row.
        const std::vector<std::size_t> batches = strategy_name == "bayes" ? batch_sizes : std::vector<std::size_t>{1};
        for (const std::size_t batch : batches) {
          strategy_options.bayes.batch_size = batch;
          Row row{file, batch == 1 ? name : name + " q=" + std::to_string(batch), configs, *best->time_s, {}, {}, {}, {},
                  0.0, 0, batch};
          for (const auto& t : rec.trials)
            if (t.ok() && *t.time_s <= 1.05 * *best->time_s) ++row.within5;
          const auto started = std::chrono::steady_clock::now();
          for (int seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 engine(static_cast<std::uint64_t>(seed));
            const auto strategy = search::make_strategy(strategy_name, rec.space, engine, strategy_options);
            const auto result = search::run_search(
                *strategy, objective,
                search::StopRules{}.add(batch_table_only ? MetricsComplete{*best->time_s * 1.05, 0}
                                                         : MetricsComplete{*best->time_s * 1.01, at20}),
                batch);
            auto count = [](std::optional<std::size_t> n) {
              return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
            };
            row.to5.push_back(count(bench::evaluations_to_reach(result.trials, *best->time_s, 1.05)));
            row.to1.push_back(count(bench::evaluations_to_reach(result.trials, *best->time_s, 1.01)));
            row.at10.push_back(bench::best_ratio_after(result.trials, *best->time_s, at10));
            row.at20.push_back(bench::best_ratio_after(result.trials, *best->time_s, at20));
            std::vector<std::optional<double>> curve;
            for (std::size_t k = 1; k <= result.trials.size(); ++k)
              curve.push_back(bench::best_ratio_after(result.trials, *best->time_s, k));
            row.best_so_far.push_back(std::move(curve));
          }
          row.seconds_per_run =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() / seeds;
          std::cerr << file << ": " << row.strategy << " done (" << row.seconds_per_run << " s per run)\n";
          rows.push_back(std::move(row));
        }
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "memtune_search_bench: " << e.what() << '\n';
    return 1;
  }

  if (batch_table_only) {
    std::printf("%d seeds; each run stopped within 5%% of the optimum\n", seeds);
    print_batch_table(rows, batch_sizes);
    return 0;
  }
  if (json) {
    nlohmann::json out{{"schema_version", 1}, {"tool", "memtune_search_bench 0.1.0"}, {"seeds", seeds}};
    nlohmann::json results = nlohmann::json::array();
    for (const Row& r : rows)
      results.push_back({{"recording", r.recording},
                         {"strategy", r.strategy},
                         {"configs", r.configs},
                         {"optimum_s", r.optimum_s},
                         {"evaluations_to_within_5pct", to_json(bench::summarize(r.to5), r.to5)},
                         {"evaluations_to_within_1pct", to_json(bench::summarize(r.to1), r.to1)},
                         {"best_over_optimum_at_10pct", to_json(bench::summarize(r.at10), r.at10)},
                         {"best_over_optimum_at_20pct", to_json(bench::summarize(r.at20), r.at20)},
                         {"batch_size", r.batch},
                         {"seconds_per_run", r.seconds_per_run},
                         {"best_so_far", best_so_far_json(r)}});
    out["results"] = results;
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::printf("%d seeds; medians with [interquartile range]; best@k%% = best time / optimum after k%% of the grid\n",
              seeds);
  if (kernel_tuner.contains("tool"))
    std::printf("kt:* rows: %s, simulation mode on the same recordings\n",
                kernel_tuner["tool"].get<std::string>().c_str());
  std::printf("%-28s %-16s %7s %22s %22s %24s %24s %9s\n", "recording", "strategy", "configs", "evals to 5%",
              "evals to 1%", "best@10%", "best@20%", "s/run");
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    const std::string shown =
        r.recording.size() > 28 ? "..." + r.recording.substr(r.recording.size() - 25) : r.recording;
    std::printf("%-28s %-16s %7zu %22s %22s %24s %24s %9.3f\n", shown.c_str(), r.strategy.c_str(), r.configs,
                cell(bench::summarize(r.to5), 0).c_str(), cell(bench::summarize(r.to1), 0).c_str(),
                cell(bench::summarize(r.at10), 3).c_str(), cell(bench::summarize(r.at20), 3).c_str(),
                r.seconds_per_run);
    if (k + 1 < rows.size() && rows[k + 1].recording == r.recording) continue;
    // Kernel Tuner's rows for the same recording (matched by file name), side by side.
    if (!kernel_tuner.contains("results")) continue;
    for (const auto& kt : kernel_tuner["results"]) {
      if (std::filesystem::path(kt.value("recording", "")).filename() != std::filesystem::path(r.recording).filename())
        continue;
      auto kt_cell = [](const nlohmann::json& s, int precision) {
        auto num = [&](const nlohmann::json& x) {
          if (x.is_null()) return std::string("inf");
          char buf[32];
          std::snprintf(buf, sizeof buf, "%.*f", precision, x.get<double>());
          return std::string(buf);
        };
        return num(s["median"]) + " [" + num(s["q1"]) + "-" + num(s["q3"]) + "]";
      };
      std::printf("%-28s %-16s %7zu %22s %22s %24s %24s %9.3f\n", shown.c_str(),
                  kt.value("strategy", "?").c_str(), kt.value("configs", std::size_t{0}),
                  kt_cell(kt["evaluations_to_within_5pct"], 0).c_str(),
                  kt_cell(kt["evaluations_to_within_1pct"], 0).c_str(),
                  kt_cell(kt["best_over_optimum_at_10pct"], 3).c_str(),
                  kt_cell(kt["best_over_optimum_at_20pct"], 3).c_str(), kt.value("seconds_per_run", 0.0));
    }
  }
  print_verdicts(rows, kernel_tuner, no_prior);
  if (batch_sizes.size() > 1) print_batch_table(rows, batch_sizes);
  return 0;
}

// A bad recording or target file is a message and exit code 1, never `terminate called`.
int main(int argc, char** argv) {
  return memtune::run_reporting_errors("memtune_search_bench", std::cerr, [&] { return bench_main(argc, argv); });
}
