#include "tune_progress.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace memtune::cli {

void attach_progress(TuneOptions& options, ProgressLine& line) {
  struct Counts {
    std::size_t failures = 0;
    std::optional<double> best_s;
  };
  auto counts = std::make_shared<Counts>();
  options.on_start = [&line, budget = options.budget, counts](const TuningResult& r) {
    std::size_t total = r.space.cross_product_size() - r.configs_pruned;
    if (budget) total = std::min(total, budget);
    *counts = {};
    line.phase(std::string(r.measured ? "measuring " : "predicting ") + r.template_name + " (" + r.strategy + ")", total);
  };
  options.on_evaluation = [&line, counts](const Evaluation& e, std::size_t done) {
    if (!e.ok()) ++counts->failures;
    else if (e.timing && (!counts->best_s || e.timing->median_s < *counts->best_s)) counts->best_s = e.timing->median_s;
    line.update(done, counts->failures, counts->best_s);
  };
}

std::string run_summary(const TuningResult& r) {
  std::size_t failed = 0;
  for (const auto& e : r.evaluations) failed += !e.ok();
  char best[32] = "none";
  if (const Evaluation* b = r.best()) std::snprintf(best, sizeof best, "%.2f us", b->timing->median_s * 1e6);
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu evaluated, %zu failed, best %s, %.1f s", r.evaluations.size(), failed, best,
                r.wall_seconds);
  std::string s = buf;
  if (r.configs_not_compiled) s += " (" + std::to_string(r.configs_not_compiled) + " more bounded out by the model)";
  if (!r.stop_reason.empty()) s += "; stopped: " + r.stop_reason;
  return s;
}

} // namespace memtune::cli
