// One run's section of the HTML report (html_parts.hpp): the heatmap, the
// effect of each axis, the achieved bandwidth, time against energy, the
// failures and the ranked configurations, with the ties a model leaves.
#include <memtune/io/number_text.hpp>
#include <memtune/report/html_report.hpp>

#include <memtune/report/analysis.hpp>
#include <memtune/report/charts.hpp>
#include <memtune/report/svg.hpp>

#include "html_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

namespace memtune::report::html_detail {
namespace {

using svg::escape;

std::string run_label(const Run& r) {
  return (r.source.empty() ? std::string("this run") : basename(r.source)) + " (" + r.mode() + ", " +
         (r.measured ? r.device_name() : "target " + (r.target.empty() ? r.device_name() : r.target)) + ")";
}

std::string axis_value_cell(const search::Axis& a, std::int64_t v) {
  return "<td data-v=\"" + escape(a.kind == search::AxisKind::ordinal ? std::to_string(v) : a.format(v)) + "\">" +
         escape(a.format(v)) + "</td>";
}

// A model predicts the same time for configurations at the same bound (the
// same bytes at the same bandwidth): a modeled table's order within such a
// tie says nothing. Each tie among the shown rows, with what its members
// differ in (which a measurement would have to settle).
std::string ties_note(const Run& r, const std::vector<const search::Trial*>& ranked, std::size_t rows) {
  std::string out;
  std::size_t ties = 0;
  const std::size_t shown = std::min(rows, ranked.size());
  for (std::size_t i = 0; i < shown;) {
    std::size_t j = i + 1;
    while (j < ranked.size() && *ranked[j]->time_s == *ranked[i]->time_s) ++j;
    if (j - i > 1) {
      std::string differ;
      for (const auto& a : r.space.axes())
        for (std::size_t k = i + 1; k < j; ++k)
          if (ranked[k]->config.has(a.name) && ranked[i]->config.has(a.name) &&
              ranked[k]->config.at(a.name) != ranked[i]->config.at(a.name)) {
            differ += (differ.empty() ? "" : ", ") + a.name;
            break;
          }
      if (++ties <= 5) // the fastest; a long table's every tie would bury them
        out += (out.empty() ? "" : "; ") + std::to_string(j - i) + " configurations (ranks " + std::to_string(i + 1) +
             "-" + std::to_string(j) + ") tie at " + number_text("%.2f us", *ranked[i]->time_s * 1e6) +
             " predicted (they differ in " + differ + ")";
    }
    i = j;
  }
  if (out.empty()) return "";
  if (ties > 5) out += "; and " + std::to_string(ties - 5) + " more ties further down";
  return "<p class=\"note\">Ties: " + escape(out) +
         ". The model does not separate them: their order here is the order they were evaluated in; a measurement settles it.</p>";
}

std::string ranked_table(const Run& r, std::size_t rows) {
  std::vector<const search::Trial*> ok;
  for (const auto& t : r.trials)
    if (t.ok()) ok.push_back(&t);
  std::stable_sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return *a->time_s < *b->time_s; });
  if (ok.empty()) return "";
  // On several GPUs: which one measured each row (the trial's index gives its GPU).
  const bool gpu_column = r.gpus().size() > 1;
  auto gpu_of = [&](const search::Trial* t) -> std::optional<int> {
    const auto i = static_cast<std::size_t>(t - r.trials.data());
    return i < r.trial_devices.size() ? r.trial_devices[i] : std::nullopt;
  };
  const double best = *ok.front()->time_s;
  std::string h = r.measured ? "" : ties_note(r, ok, rows);
  h += "<details" + std::string(ok.size() <= 40 ? " open" : "") + "><summary>Ranked configurations (" +
                  std::to_string(std::min(rows, ok.size())) + " of " + std::to_string(ok.size()) +
                  " ok; click a column to sort)</summary><table class=\"sortable ranked\"><thead><tr><th>rank</th>";
  for (const auto& a : r.space.axes()) h += "<th>" + escape(a.name) + "</th>";
  h += std::string("<th>") + (r.measured ? "time us" : "predicted us") + "</th><th>x best</th>";
  if (r.bytes_moved) h += "<th>GB/s</th>";
  if (r.bytes_moved && r.copy_ceiling_gbps) h += "<th>% ceiling</th>";
  if (r.bytes_moved && r.peak_gbps) h += "<th>% peak</th>";
  if (gpu_column) h += "<th>GPU</th>";
  h += "</tr></thead><tbody>";
  for (std::size_t i = 0; i < ok.size() && i < rows; ++i) {
    const search::Trial& t = *ok[i];
    h += "<tr><td data-v=\"" + std::to_string(i + 1) + "\">" + std::to_string(i + 1) + "</td>";
    for (const auto& a : r.space.axes())
      h += t.config.has(a.name) ? axis_value_cell(a, t.config.at(a.name)) : std::string("<td></td>");
    const double s = *t.time_s;
    h += "<td data-v=\"" + number_text("%.6g", s * 1e6) + "\">" + number_text("%.2f", s * 1e6) + "</td><td data-v=\"" + number_text("%.6g", s / best) +
         "\">" + number_text("%.3f", s / best) + "</td>";
    if (r.bytes_moved) {
      const double gbps = *r.bytes_moved / s / 1e9;
      h += "<td data-v=\"" + number_text("%.6g", gbps) + "\">" + number_text("%.0f", gbps) + "</td>";
      if (r.copy_ceiling_gbps) h += "<td>" + number_text("%.1f", 100 * gbps / *r.copy_ceiling_gbps) + "</td>";
      if (r.peak_gbps) h += "<td>" + number_text("%.1f", 100 * gbps / *r.peak_gbps) + "</td>";
    }
    if (gpu_column) {
      const auto gpu = gpu_of(&t);
      h += gpu ? "<td data-v=\"" + std::to_string(*gpu) + "\">" + std::to_string(*gpu) + "</td>" : std::string("<td></td>");
    }
    h += "</tr>";
  }
  return h + "</tbody></table></details>";
}

std::string bandwidth_section(const Run& r, std::size_t rows) {
  if (!r.bytes_moved) return "<p class=\"note\">GB/s not shown: the bytes this kernel moves are unknown.</p>";
  std::vector<const search::Trial*> ok;
  for (const auto& t : r.trials)
    if (t.ok()) ok.push_back(&t);
  std::stable_sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return *a->time_s < *b->time_s; });
  ok.resize(std::min(ok.size(), rows));
  // Labels name only the axes in which the bars differ; the rest go in the caption.
  std::vector<std::string> shared, differing;
  for (const auto& a : r.space.axes()) {
    const bool same = std::all_of(ok.begin(), ok.end(), [&](const search::Trial* t) {
      return t->config.has(a.name) && t->config.at(a.name) == ok.front()->config.at(a.name);
    });
    if (!ok.empty() && same) shared.push_back(a.name + "=" + a.format(ok.front()->config.at(a.name)));
    else differing.push_back(a.name);
  }
  std::vector<charts::Bar> bars;
  for (std::size_t i = 0; i < ok.size(); ++i) {
    const double gbps = *r.bytes_moved / *ok[i]->time_s / 1e9;
    std::string label;
    for (const auto& name : differing)
      if (ok[i]->config.has(name))
        label += " " + name + "=" + r.space.axis(name).format(ok[i]->config.at(name));
    const std::string cfg = r.space.format(ok[i]->config);
    bars.push_back({"#" + std::to_string(i + 1) + label, cfg + ": " + number_text("%.0f GB/s", gbps) + ", " +
                                                           number_text("%.2f us", *ok[i]->time_s * 1e6), gbps});
  }
  std::string common;
  for (const auto& s : shared) common += (common.empty() ? "" : " ") + s;
  if (bars.empty()) return "";
  std::vector<charts::Reference> refs;
  if (r.copy_ceiling_gbps) refs.push_back({"copy ceiling", *r.copy_ceiling_gbps, "#e15759"});
  if (r.peak_gbps) refs.push_back({"peak", *r.peak_gbps, "#59a14f"});
  return figure("Achieved bandwidth of the fastest configurations",
                charts::bars(bars, refs, "GB/s (" + number_text("%.4g", *r.bytes_moved / 1e6) + " MB moved per launch / time)",
                             "GB/s of the top configurations", true),
                (common.empty() || ok.size() < 2 ? "" : "All of them have " + common + "; hover a bar for its whole configuration. ") +
                    (r.copy_ceiling_gbps || !r.measured ? ""
                                                        : "(no copy ceiling in this input: pass a target file from "
                                                          "`memtune probe --save-target` to add it)"));
}

std::string failures_section(const Run& r) {
  std::map<std::string, std::size_t> counts;
  std::map<std::string, std::map<std::string, std::pair<std::size_t, std::string>>> reasons; // status -> reason -> (n, example)
  for (const auto& t : r.trials) {
    if (t.ok()) continue;
    ++counts[t.status];
    auto& slot = reasons[t.status][t.reason.substr(0, 300)];
    if (slot.first++ == 0) slot.second = r.space.format(t.config);
  }
  if (counts.empty()) return "<p>No failures: every evaluated configuration ran" +
                             std::string(r.measured ? " and matched the reference." : " in the model.") + "</p>";
  std::vector<charts::Bar> bars;
  for (const auto& [status, n] : counts) bars.push_back({status, status + ": " + std::to_string(n), static_cast<double>(n)});
  std::string h = figure("Failures by status", charts::bars(bars, {}, "configurations", "failures by status"));
  h += "<table class=\"facts\"><thead><tr><th>status</th><th>count</th><th>reason</th><th>example</th></tr></thead><tbody>";
  for (const auto& [status, by_reason] : reasons) {
    std::vector<std::pair<std::string, std::pair<std::size_t, std::string>>> sorted(by_reason.begin(), by_reason.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
    for (std::size_t i = 0; i < sorted.size() && i < 5; ++i)
      h += "<tr><td>" + escape(status) + "</td><td>" + std::to_string(sorted[i].second.first) + "</td><td>" +
           escape(sorted[i].first.empty() ? "(no reason recorded)" : sorted[i].first) + "</td><td>" +
           escape(sorted[i].second.second) + "</td></tr>";
    if (sorted.size() > 5)
      h += "<tr><td>" + escape(status) + "</td><td colspan=\"3\">... " + std::to_string(sorted.size() - 5) +
           " more distinct reasons</td></tr>";
  }
  return h + "</tbody></table>";
}

std::string heatmap_caption(const Heatmap& map, const ReportOptions& o) {
  std::string s = (o.heatmap_axes.empty() ? "Axes and slice: the pair, and the values of the other axes, with the most "
                                            "cells measured near the best (--axes X,Y picks the axes)"
                                          : "The slice of these axes with the most cells measured") +
                  std::string(": ") + std::to_string(map.filled) + " of " + std::to_string(map.total) + " cells ok";
  if (!map.fixed.empty()) s += ", the other axes at " + map.fixed;
  s += map.slice_best_s > map.best_s ? "; its fastest is " + number_text("%.3gx", map.slice_best_s / map.best_s) +
                                           " the best overall."
                                     : "; it holds the best configuration.";
  return s + " Colour and label: time over the best; hover a cell for its configuration and time, or why it is empty.";
}

} // namespace

std::string run_section(const Run& r, const ReportOptions& o, const std::string& id) {
  std::string h = "<section class=\"run\" id=\"" + id + "\"><h3>" + escape(run_label(r)) + "</h3>";
  const search::Trial* best = r.best();
  if (!best) return h + "<p>No configuration succeeded.</p>" + failures_section(r) + "</section>";
  const auto effects = axis_effects(r);
  if (const auto slice = heatmap_choice(r, effects, o.heatmap_axes)) {
    const Heatmap map = heatmap(r, *slice);
    h += figure("The space over " + map.x_axis + " and " + map.y_axis, charts::heatmap(map), heatmap_caption(map, o));
  }
  if (!effects.empty())
    h += figure("Effect of each axis", charts::axis_effects(effects, *best->time_s),
                "per value: the best time (red dot) and the interquartile range of all its ok configurations (bar, "
                "median line), over the best overall; most important axis first.");
  h += bandwidth_section(r, o.bandwidth_rows);
  if (const EnergyFront front = energy_front(r); !front.points.empty())
    h += figure("Time against energy", charts::energy_scatter(front),
                "each measured configuration's median time and median joules per launch (NVML's energy counter, "
                "docs/energy.md); orange: the Pareto front, where no other configuration is both faster and more "
                "frugal. Its fastest end is the time-best, its lowest the energy-best.");
  h += "<h4>Failures</h4>" + failures_section(r);
  h += ranked_table(r, o.table_rows);
  return h + "</section>";
}

} // namespace memtune::report::html_detail
