#include "sweep_report.hpp"

#include <memtune/io/number_text.hpp>
#include <memtune/output/tuning_document.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace memtune::cli {
namespace {

// Configurations in the whole grid of a size (what a grid search evaluates);
// 0 when the space is too large to list.
std::size_t grid_size(const TuningResult& r) {
  try {
    return r.space.enumerate().size();
  } catch (const std::exception&) {
    return 0;
  }
}

// Why a size has no best: the run was aborted; or its time is not modeled (a
// modeled run of a description without a model section); or its failures by
// status, the commonest first with one of its reasons; or candidates that
// ran without a time.
std::string why_no_best(const TuningResult& r) {
  if (!r.aborted.empty()) return r.aborted;
  if (!r.measured && !r.time_modeled) return "the time is not modeled: the description has no \"model\" section";
  std::map<std::string, std::pair<std::size_t, std::string>> failed; // status: count, first reason
  std::size_t untimed = 0;
  for (const Evaluation& e : r.evaluations) {
    if (e.status == Status::ok) {
      untimed += e.timing ? 0 : 1;
      continue;
    }
    auto& [count, reason] = failed[to_string(e.status)];
    if (count++ == 0) reason = e.reason;
  }
  if (failed.empty())
    return untimed > 0 ? std::to_string(untimed) + " candidates ran with no time (nothing modeled or measured a time)"
                       : "no candidate was evaluated";
  const auto commonest = std::max_element(failed.begin(), failed.end(),
                                          [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
  std::string text;
  for (const auto& [status, count_reason] : failed)
    text += (text.empty() ? "" : ", ") + std::to_string(count_reason.first) + " " + status;
  return text + "; " + commonest->first + ": " + commonest->second.second;
}

} // namespace

output::Document sweep_document(const KernelDescription& kernel, const std::vector<std::string>& swept,
                                const std::vector<TuningResult>& results, const std::vector<bool>& refined,
                                const std::string& saved_to) {
  output::Document d;
  d.title = "memtune sweep " + kernel.name;
  const bool measured = !results.empty() && results.front().measured;
  const std::string ceiling = measured ? "copy ceiling" : "peak DRAM bandwidth";
  if (!results.empty()) {
    const TuningResult& first = results.front();
    d.fact(std::string(measured ? "measured on " : "modeled for ") + first.device.name + ", strategy " + first.strategy);
  }
  output::Table& t = d.add_table("sizes");
  t.columns = {{.key = "size", .header = "size", .left = true},
               {.key = "best", .header = "best configuration", .json = false},
               {.key = "time_s", .header = "time us", .format = "%.2f", .scale = 1e6},
               {.key = "gbps", .header = "GB/s", .format = "%.0f"},
               {.key = "fraction", .header = "% of " + ceiling, .format = "%.1f", .scale = 100},
               {.key = "evaluated", .header = "evaluated"},
               {.key = "grid", .header = "grid"},
               {.key = "change", .header = "best changes", .json = false, .left = true}};
  std::size_t evaluated = 0, largest_grid = 0, changes = 0, refinements = 0;
  double wall = 0;
  std::string previous;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const TuningResult& r = results[i];
    const bool added = i < refined.size() && refined[i];
    refinements += added ? 1 : 0;
    nlohmann::json row;
    std::string size;
    nlohmann::json problem = nlohmann::json::object();
    for (const std::string& name : swept) {
      size += (size.empty() ? "" : " ") + name + "=" + std::to_string(r.problem.at(name));
      problem[name] = r.problem.at(name);
    }
    row["size"] = added ? size + " (refined)" : size;
    row["problem"] = r.problem;
    row["refined"] = added;
    const std::size_t grid = grid_size(r);
    row["evaluated"] = r.evaluations.size();
    row["grid"] = grid;
    row["search_prior"] = r.search_prior;
    row["wall_s"] = r.wall_seconds;
    row["resumed"] = r.resumed; // candidates answered from the size's journal
    evaluated += r.evaluations.size();
    largest_grid = std::max(largest_grid, grid);
    wall += r.wall_seconds;
    if (const Evaluation* best = r.best()) {
      const std::string text = r.space.format(best->config);
      row["config"] = r.space.config_to_json(best->config);
      row["best"] = text;
      row["time_s"] = best->timing->median_s;
      row["gbps"] = best->gbps;
      row["fraction"] = measured ? best->fraction_of_ceiling : best->fraction_of_peak;
      const bool changed = !previous.empty() && previous != text;
      row["changes"] = changed;
      row["change"] = changed ? "<- changes" : "";
      changes += changed ? 1 : 0;
      previous = text;
    } else {
      row["best"] = "(none: " + why_no_best(r) + ")";
      row["changes"] = false;
      row["change"] = "";
    }
    t.rows.push_back(std::move(row));
  }
  d.data["template"] = kernel.name;
  d.data["mode"] = measured ? "measured" : "modeled";
  d.data["swept"] = swept;
  d.data["evaluations"] = evaluated;
  d.data["grid"] = largest_grid;
  d.data["wall_s"] = wall;
  d.data["changes"] = changes;
  d.data["refined"] = refinements;
  d.fact(std::to_string(results.size()) + (results.size() == 1 ? " size, " : " sizes, ") + std::to_string(evaluated) +
         " candidates evaluated" +
         (largest_grid > 0 ? number_text(" (%.2f x one size's whole grid of ", static_cast<double>(evaluated) /
                                                                                    static_cast<double>(largest_grid)) +
                                 std::to_string(largest_grid) + ")"
                           : std::string{}) +
         number_text(", %.1f s", wall) +
         (refinements > 0 ? "; " + std::to_string(refinements) + " of the sizes added by --refine" : std::string{}));
  d.fact("the best configuration changes " + std::to_string(changes) + " time" + (changes == 1 ? "" : "s") +
         " across the sizes");
  if (largest_grid > 0) d.data["cost_vs_grid"] = static_cast<double>(evaluated) / static_cast<double>(largest_grid);
  const bool any_best = std::any_of(results.begin(), results.end(), [](const TuningResult& r) { return r.best(); });
  if (!results.empty() && !measured && !results.front().time_modeled) d.paragraph(not_modeled_advice(kernel.name));
  if (!saved_to.empty() && !any_best) {
    d.paragraph("nothing saved to " + saved_to + ": no size has a best configuration");
  } else if (!saved_to.empty()) {
    d.data["saved_to"] = saved_to;
    d.paragraph("saved one entry per size to " + saved_to +
                "; a call at a size between two of them takes the configuration best by the ranking interpolated "
                "between the two (memtune profile show " + saved_to + " prints the rule)");
  }
  return d;
}

} // namespace memtune::cli
