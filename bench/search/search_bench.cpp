// memtune_search_bench: how fast each strategy finds the optimum of recorded
// spaces, replaying the recorded times (no GPU).
//
//   memtune_search_bench bench/data/synthetic_space.json [--seeds 30] [--json]
//                        [--strategies grid,random,bayes,bayes+model] [--bayes-initial N] [--bayes-xi X] [--bayes-no-feasibility]
//                        [--bayes-refit-every-below N] [--bayes-acquisition ei|hedge] [--bayes-min-length-scale L]
//                        [--bayes-hedge-eta E] [--bayes-lcb-kappa K]
//                        [--kernel-tuner kt.json] [--batch-sizes 1,2,4,8] [--bayes-fantasy kb|cl]
//                        [--spec kernel.json ...] [--stopping 180:60,300:120]
//
// --json adds, per strategy, the quartiles over the seeds of the best so far /
// optimum after each evaluation ("best_so_far"), which `memtune report` plots.
//
// Per recording and strategy, over the seeds: evaluations until the best so far
// is within 5% and within 1% of the recording's optimum, and the best found
// (as time / optimum) after 10% and 20% of the grid's evaluations (the number
// of valid configs). Each run stops once it is within 1% and past the 20%
// mark, or when the space is exhausted, or after --max-evaluations (2000):
// on a space of 10^5 the 10% and 20% marks lie past that cap, so they are not
// measured there ("-") and a run stops once within 1%.
//
// `bayes+model` is bayes with the analytical model's prediction as the prior
// mean: the recording's device is looked up in the target catalogue (by name,
// e.g. "NVIDIA H100 80GB HBM3" -> h100-sxm), and the prior comes from
// model_prior.hpp for a template (its problem from the recording) or
// probe/prior.hpp for a probe's space, or, for a user kernel's recording, from
// the model section of the description file given with --spec whose name and
// fingerprint are the recording's (what `memtune tune --spec` runs). A
// recording with no such model (an unknown device, as the synthetic one)
// gets no bayes+model row (recording_prior.hpp).
//
// --batch-sizes replays bayes and bayes+model as that many parallel workers
// (search::run_search with `workers`): the strategy keeps q proposals
// outstanding and each trial counts as one evaluation, in observation order;
// when a run stops, the q-1 trials still in flight end and are kept, as in
// the tuner (the same loop).
// Their rows are named "bayes q=4"; a last table gives evaluations to 5% per
// batch size and the bar: batch 4 needs at most 1.5x batch 1's evaluations.
// --batch-table-only runs only those (bayes and bayes+model), each run
// stopped once within 5% of the optimum, and prints only that table: the
// other metrics would need every run to go on to 1% and past 20% of the grid,
// the most expensive part of a bayes run.
//
// --stopping BUDGET:PATIENCE,... replays instead what a tuning run with
// those stop rules keeps (`memtune ... --budget B --patience P`): each run
// stops where the tuner would, and one line per recording, strategy and
// setting gives the evaluations spent and the kept best / optimum
// (stopping.hpp). Only that table is printed.
//
// Only fully recorded spaces are replayed: a recording that lacks some valid
// config (a --budget or bayes run, or a space of millions of configurations
// described in a few lines) is refused with the counts, at once, without
// listing the space.
//
// With both random and bayes run, each recording ends with the benchmark's bar as
// verdict lines, for bayes and bayes+model: median evaluations to 5% as a
// share of the grid (<= 15%), random's median over theirs (>= 2; not
// measurable where random's median is <= 2 evaluations), and, given the JSON
// of kernel_tuner_compare.py --json (--kernel-tuner), against Kernel Tuner's
// bayes_opt on the same recording (no more evaluations).
#include "metrics.hpp"
#include "recording_prior.hpp"
#include "rows.hpp"
#include "step_cost.hpp"
#include "stopping.hpp"
#include "verdicts.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/search/factory.hpp>
#include <memtune/search/grid_cursor.hpp>
#include <memtune/search/recording.hpp>
#include <memtune/search/run_search.hpp>

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
#include <map>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace memtune;
using bench::Row;
using bench::cell;
using bench::print_batch_table;
using bench::print_verdicts;

// Stops a benchmark run once nothing more can change its metrics: within the
// target and past the last evaluation count a metric is taken at, or on the
// optimum itself (no later evaluation can improve any best so far; on a hard
// space of thousands this spares a bayes run its walk to 20 % of the grid).
class MetricsComplete final : public search::StopRule {
public:
  MetricsComplete(double target_s, std::size_t min_evaluations, double optimum_s)
      : target_(target_s), min_(min_evaluations), optimum_(optimum_s) {}
  std::optional<std::string> check(const search::SearchProgress& p) override {
    if (!p.best_time_s) return std::nullopt;
    if (*p.best_time_s <= optimum_) return "optimum found";
    if (p.evaluations >= min_ && *p.best_time_s <= target_) return "metrics complete";
    return std::nullopt;
  }

private:
  double target_;
  std::size_t min_;
  double optimum_;
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

nlohmann::json to_json(const bench::Summary& s, const std::vector<std::optional<double>>& runs) {
  auto num = [](double x) { return std::isinf(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
  nlohmann::json values = nlohmann::json::array();
  for (const auto& r : runs) values.push_back(r ? nlohmann::json(*r) : nlohmann::json(nullptr));
  return {{"median", num(s.median)}, {"q1", num(s.q1)}, {"q3", num(s.q3)}, {"missing", s.missing}, {"runs", values}};
}

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
  auto* json_flag = app.add_flag("--json", json, "print JSON instead of a table");
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
  auto* batch_table_flag = app.add_flag("--batch-table-only", batch_table_only,
               "run bayes and bayes+model only, stop each run within 5% of the optimum, print the batch-size table");
  std::string kernel_tuner_file;
  app.add_option("--kernel-tuner", kernel_tuner_file, "JSON of kernel_tuner_compare.py --json, for the verdict lines")
      ->check(CLI::ExistingFile);
  std::vector<std::string> spec_files;
  app.add_option("--spec", spec_files,
                 "kernel description files (memtune tune --spec): bayes+model on their recordings, from their model "
                 "sections")
      ->check(CLI::ExistingFile);
  std::size_t max_evaluations = 2000;
  app.add_option("--max-evaluations", max_evaluations,
                 "stop every run after this many evaluations; the best@10%/20% metrics of a space whose 20% mark lies "
                 "past it are not measured")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  std::vector<std::string> stopping_texts;
  app.add_option("--stopping", stopping_texts,
                 "instead of the search metrics: what a run stopped by the tuner's rules keeps, per BUDGET:PATIENCE "
                 "(e.g. 180:60,300:120; 0: none), as memtune's --budget and --patience; a table only")
      ->delimiter(',')
      ->excludes(json_flag, batch_table_flag);
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
  std::vector<bench::StopSetting> stop_settings;
  for (const auto& text : stopping_texts) stop_settings.push_back(bench::parse_stop_setting(text));
  std::vector<bench::StoppingRow> stopping_rows;
  if (std::find(batch_sizes.begin(), batch_sizes.end(), std::size_t{1}) == batch_sizes.end())
    batch_sizes.insert(batch_sizes.begin(), 1); // the sequential row every ratio is taken against

  if (!step_cost_at.empty()) {
    bench::print_step_cost_header(step_cost_at);
    for (const auto& file : files) {
      const search::Recording rec = search::load_recording(file);
      bench::print_step_cost_row(file, recorded_space_size(rec, file), step_cost_at,
                          bench::measure_step_cost(rec.space, search::replay_objective(rec), step_cost_at, options));
      std::fflush(stdout);
    }
    const search::Space synthetic = bench::step_cost_space();
    bench::print_step_cost_row("synthetic 5 axes x 10 values", synthetic.cross_product_size(), step_cost_at,
                        bench::measure_step_cost(synthetic, bench::step_cost_objective, step_cost_at, options));
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
    std::vector<KernelDescription> specs;
    for (const auto& file : spec_files) specs.push_back(load_description(file));
    for (const auto& file : files) {
      const search::Recording rec = search::load_recording(file);
      const auto best = rec.best();
      if (!best) throw std::runtime_error(file + ": no successful trial to measure against");
      const std::size_t configs = recorded_space_size(rec, file);
      const auto at10 = static_cast<std::size_t>(std::ceil(0.10 * static_cast<double>(configs)));
      const auto at20 = static_cast<std::size_t>(std::ceil(0.20 * static_cast<double>(configs)));
      // Past the cap, the runs never reach the 10% and 20% marks: not measured.
      const bool marks_measured = at20 <= max_evaluations;
      const search::Objective objective = search::replay_objective(rec);
      std::optional<std::function<double(const search::Config&)>> prior;
      if (std::find(strategies.begin(), strategies.end(), "bayes+model") != strategies.end()) {
        std::string why_not;
        const auto started = std::chrono::steady_clock::now();
        try {
          prior = bench::recording_prior(rec, specs, why_not);
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
      if (!stop_settings.empty()) {
        for (const auto& name : strategies) {
          search::StrategyOptions strategy_options = options;
          if (name == "bayes+model") {
            if (!prior) continue;
            strategy_options.bayes.prior_mean = *prior;
          }
          for (const bench::StopSetting& setting : stop_settings) {
            stopping_rows.push_back(bench::replay_stopped(file, name, name == "bayes+model" ? "bayes" : name, rec.space,
                                                          objective, strategy_options, setting, seeds,
                                                          max_evaluations, *best->time_s));
            std::cerr << file << ": " << name << " stopped by " << setting.budget << ":" << setting.patience
                      << " done\n";
          }
        }
        continue;
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
          row.marks_measured = marks_measured;
          for (const auto& t : rec.trials)
            if (t.ok() && *t.time_s <= 1.05 * *best->time_s) ++row.within5;
          const auto started = std::chrono::steady_clock::now();
          for (int seed = 1; seed <= seeds; ++seed) {
            std::mt19937_64 engine(static_cast<std::uint64_t>(seed));
            const auto strategy = search::make_strategy(strategy_name, rec.space, engine, strategy_options);
            const auto result = search::run_search(
                *strategy, objective,
                search::StopRules{}
                    .add(batch_table_only ? MetricsComplete{*best->time_s * 1.05, 0, *best->time_s}
                                          : MetricsComplete{*best->time_s * 1.01, marks_measured ? at20 : 0,
                                                            *best->time_s})
                    .add(search::EvaluationBudget{max_evaluations}),
                batch);
            auto count = [](std::optional<std::size_t> n) {
              return n ? std::optional<double>(static_cast<double>(*n)) : std::nullopt;
            };
            row.to5.push_back(count(bench::evaluations_to_reach(result.trials, *best->time_s, 1.05)));
            row.to1.push_back(count(bench::evaluations_to_reach(result.trials, *best->time_s, 1.01)));
            if (marks_measured) {
              row.at10.push_back(bench::best_ratio_after(result.trials, *best->time_s, at10));
              row.at20.push_back(bench::best_ratio_after(result.trials, *best->time_s, at20));
            }
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

  if (!stop_settings.empty()) {
    std::printf("%d seeds; each run stopped by its budget and patience; medians with [interquartile range]\n", seeds);
    bench::print_stopping_table(stopping_rows);
    return 0;
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
                         {"best_over_optimum_at_10pct",
                          r.marks_measured ? to_json(bench::summarize(r.at10), r.at10) : nlohmann::json(nullptr)},
                         {"best_over_optimum_at_20pct",
                          r.marks_measured ? to_json(bench::summarize(r.at20), r.at20) : nlohmann::json(nullptr)},
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
                r.marks_measured ? cell(bench::summarize(r.at10), 3).c_str() : "-",
                r.marks_measured ? cell(bench::summarize(r.at20), 3).c_str() : "-", r.seconds_per_run);
    if (k + 1 < rows.size() && rows[k + 1].recording == r.recording) continue;
    // Kernel Tuner's rows for the same recording (matched by file name), side by side.
    if (!kernel_tuner.contains("results")) continue;
    for (const auto& kt : kernel_tuner["results"]) {
      if (std::filesystem::path(kt.value("recording", "")).filename() != std::filesystem::path(r.recording).filename())
        continue;
      auto kt_cell = [](const nlohmann::json& s, int precision) {
        if (s.is_null()) return std::string("-"); // not measured (past the run's cap)
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
