// `memtune report`'s HTML page (html_report.hpp): the inputs grouped by
// space, each with its header table, trajectories, GPU pairs and model
// comparison; each run's own section is in run_section.cpp.
#include <memtune/io/number_text.hpp>
#include <memtune/report/html_report.hpp>

#include <memtune/report/analysis.hpp>
#include <memtune/report/charts.hpp>
#include <memtune/report/svg.hpp>
#include <memtune/io/version.hpp>

#include "html_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <stdexcept>

namespace memtune::report {
namespace {

using svg::escape;
using html_detail::basename;
using html_detail::figure;
using html_detail::run_section;

// Inputs on the same template and problem: one section of the report.
struct Group {
  std::string title;
  std::vector<const Run*> runs;
  std::vector<const BenchCurve*> curves;
};

std::vector<Group> group_inputs(const Inputs& in) {
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const Run& r : in.runs) {
    const std::string key = r.template_name + " " + r.problem.dump();
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({r.template_name + " " + r.problem_text(), {}, {}});
    groups[it->second].runs.push_back(&r);
  }
  // A benchmark curve belongs with the recording it replayed (same file name).
  std::map<std::string, std::size_t> orphan_groups;
  for (const BenchCurve& c : in.curves) {
    bool placed = false;
    for (Group& g : groups)
      for (const Run* r : g.runs)
        if (!placed && !r->source.empty() && basename(r->source) == basename(c.recording)) {
          g.curves.push_back(&c);
          placed = true;
        }
    if (placed) continue;
    auto [it, fresh] = orphan_groups.emplace(c.recording, groups.size());
    if (fresh) groups.push_back({"search benchmark on " + basename(c.recording), {}, {}});
    groups[it->second].curves.push_back(&c);
  }
  return groups;
}

// The run a trajectory's optimum refers to: a whole measured grid first,
// then any whole grid, then the first run with a success.
const Run* reference_run(const std::vector<const Run*>& runs) {
  for (const bool measured : {true, false})
    for (const Run* r : runs)
      if (r->measured == measured && r->best() && r->complete()) return r;
  for (const Run* r : runs)
    if (r->best()) return r;
  return nullptr;
}

// The runs of a group that share one trajectory: measured on the same GPU
// (each GPU its own optimum), or, where nothing was measured, modeled for
// the same target. Modeled runs next to measured ones have no trajectory.
std::vector<std::pair<std::string, std::vector<const Run*>>> runs_by_gpu(const Group& g) {
  const bool any_measured = std::any_of(g.runs.begin(), g.runs.end(), [](const Run* r) { return r->measured; });
  std::vector<std::pair<std::string, std::vector<const Run*>>> out;
  for (const Run* r : g.runs) {
    if (r->measured != any_measured) continue;
    const std::string gpu = r->measured ? r->device_name() : (r->target.empty() ? r->device_name() : r->target);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == gpu; });
    if (it == out.end()) out.push_back({gpu, {r}});
    else it->second.push_back(r);
  }
  return out;
}

// "<br><small>4 GPUs: 0 (96 trials), 1 (95), ...</small>" for a run on several GPUs.
std::string gpus_text(const Run& r) {
  const std::vector<int> gpus = r.gpus();
  if (gpus.size() < 2) return "";
  std::string s = "<br><small>" + std::to_string(gpus.size()) + " GPUs: ";
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const auto n = std::count(r.trial_devices.begin(), r.trial_devices.end(), std::optional<int>(gpus[i]));
    s += (i ? ", " : "") + std::to_string(gpus[i]) + " (" + std::to_string(n) + (i ? ")" : n == 1 ? " trial)" : " trials)");
  }
  return s + "</small>";
}

std::string header_table(const Group& g) {
  std::string h = "<table class=\"facts\"><thead><tr><th>input</th><th>GPU / target</th><th>mode</th><th>strategy</th>"
                  "<th>trials (ok / failed)</th><th>best</th><th>copy ceiling</th><th>peak</th><th>wall time</th>"
                  "<th>tool</th></tr></thead><tbody>";
  for (const Run* r : g.runs) {
    std::size_t ok = 0;
    for (const auto& t : r->trials) ok += t.ok();
    const search::Trial* best = r->best();
    h += "<tr><td title=\"" + escape(r->source) + "\">" + escape(r->source.empty() ? "this run" : basename(r->source)) +
         "</td><td>" +
         escape(r->measured ? r->device_name() : r->device_name() + " (target " + r->target + ")") +
         gpus_text(*r) + "</td><td>" +
         escape(r->mode()) + "</td><td>" + escape(r->strategy.empty() ? "not recorded" : r->strategy) +
         (r->stop_reason.empty() ? "" : "<br><small>stopped: " + escape(r->stop_reason) + "</small>") + "</td><td>" +
         std::to_string(ok) + " / " + std::to_string(r->trials.size() - ok) +
         (r->complete() ? " (whole space)" : "") + "</td><td>" +
         (best ? escape(r->space.format(best->config)) + "<br>" + number_text("%.2f us", *best->time_s * 1e6) : "none") +
         "</td><td>" + (r->copy_ceiling_gbps ? number_text("%.0f GB/s", *r->copy_ceiling_gbps) : "not measured") + "</td><td>" +
         (r->peak_gbps ? number_text("%.0f GB/s", *r->peak_gbps) : "unknown") + "</td><td>" +
         (r->wall_seconds ? number_text("%.2f s", *r->wall_seconds) : "not recorded") + "</td><td>" + escape(r->tool) +
         "</td></tr>";
  }
  h += "</tbody></table>";
  for (const Run* r : g.runs)
    for (const auto& n : r->notes) h += "<p class=\"note\">" + escape(basename(r->source) + ": " + n) + "</p>";
  return h;
}

// One trajectory: the runs on one GPU and the benchmark curves of their recordings.
std::string trajectory_figure(const std::vector<const Run*>& runs, const std::vector<const BenchCurve*>& curves,
                              const std::string& title) {
  const Run* ref = reference_run(runs);
  std::vector<charts::Series> series;
  double optimum = ref ? *ref->best()->time_s : 0.0;
  if (ref) {
    for (const Run* r : runs) {
      if (!r->order_known || r->trials.size() < 2) continue;
      charts::Series s;
      s.label = (r->strategy.empty() ? "recorded order" : r->strategy) + " (" + basename(r->source.empty() ? "run" : r->source) + ")";
      for (const auto& b : best_so_far(r->trials)) s.ratio.push_back(b ? *b / optimum : std::nan(""));
      series.push_back(std::move(s));
    }
    if (ref->complete() && ref->trials.size() >= 2) {
      const QuantileCurve q = random_search_quantiles(*ref);
      charts::Series s;
      s.label = "random, exact median + IQR";
      for (std::size_t k = 0; k < q.median_s.size(); ++k) {
        s.ratio.push_back(q.median_s[k] / optimum);
        s.band_lo.push_back(q.q1_s[k] / optimum);
        s.band_hi.push_back(q.q3_s[k] / optimum);
      }
      series.push_back(std::move(s));
    }
  }
  bool summaries_only = false;
  for (const BenchCurve* c : curves) {
    if (c->median.empty()) {
      summaries_only = true;
      continue;
    }
    if (optimum <= 0) optimum = c->optimum_s;
    charts::Series s;
    s.label = c->strategy + ", median + IQR";
    s.ratio = c->median;
    s.band_lo = c->q1;
    s.band_hi = c->q3;
    series.push_back(std::move(s));
  }
  std::string out;
  if (!series.empty() && optimum > 0)
    out += figure(title,
                  charts::trajectory(series, optimum, ref && ref->complete() ? "grid optimum" : "best found"),
                  "best time so far over the optimum, per evaluation; hover a line for when it came within 5%.");
  if (summaries_only || (!curves.empty() && series.empty())) {
    out += "<table class=\"facts\"><thead><tr><th>benchmark</th><th>strategy</th><th>configs</th>"
           "<th>median evaluations to within 5%</th></tr></thead><tbody>";
    for (const BenchCurve* c : curves)
      out += "<tr><td>" + escape(c->tool) + "</td><td>" + escape(c->strategy) + "</td><td>" + std::to_string(c->configs) +
             "</td><td>" + (c->to5_median ? number_text("%.1f", *c->to5_median) : "never") + "</td></tr>";
    out += "</tbody></table>";
  }
  return out;
}

// One trajectory per GPU; a benchmark curve goes with the GPU of the
// recording it replayed (by file name), else with the first.
std::string trajectory_section(const Group& g) {
  const auto by_gpu = runs_by_gpu(g);
  std::vector<std::vector<const BenchCurve*>> curves(std::max<std::size_t>(by_gpu.size(), 1));
  for (const BenchCurve* c : g.curves) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < by_gpu.size(); ++i)
      for (const Run* r : by_gpu[i].second)
        if (!r->source.empty() && basename(r->source) == basename(c->recording)) at = i;
    curves[at].push_back(c);
  }
  if (by_gpu.empty()) return trajectory_figure({}, curves[0], "Search trajectory");
  std::string out;
  for (std::size_t i = 0; i < by_gpu.size(); ++i)
    out += trajectory_figure(by_gpu[i].second, curves[i],
                             by_gpu.size() > 1 ? "Search trajectory on " + by_gpu[i].first : "Search trajectory");
  return out;
}

// The same configurations on two GPUs: one scatter per pair of GPUs
// (the first run of each), time on the second against time on the first.
std::string gpu_pairs_section(const Group& g) {
  const auto by_gpu = runs_by_gpu(g);
  std::string out;
  for (std::size_t i = 0; i < by_gpu.size(); ++i)
    for (std::size_t j = i + 1; j < by_gpu.size(); ++j) {
      const Run& a = *by_gpu[i].second.front();
      const Run& b = *by_gpu[j].second.front();
      const auto pairs = paired_times(a, b);
      if (pairs.size() < 2) continue;
      out += figure("The same configurations on two GPUs",
                    charts::scatter(pairs, "us on " + by_gpu[i].first, "us on " + by_gpu[j].first,
                                    by_gpu[j].first + " against " + by_gpu[i].first),
                    "log-log, one point per configuration measured on both; on the dashed line y = x they take the "
                    "same time, below it the second GPU is faster. A rank correlation near 1: the same "
                    "configurations are fast on both.");
    }
  return out;
}

std::string model_section(const Group& g) {
  std::string out;
  for (const Run* measured : g.runs) {
    if (!measured->measured) continue;
    for (const Run* modeled : g.runs) {
      if (modeled->measured) continue;
      const auto pairs = paired_times(*measured, *modeled);
      if (pairs.size() < 2) continue;
      out += figure("Model against measurement",
                    charts::scatter(pairs, "measured us (" + basename(measured->source) + ")",
                                    "predicted us (" + basename(modeled->source) + ")", "predicted vs measured"),
                    "log-log, one point per configuration in both; the dashed line is y = x.");
    }
  }
  return out;
}

const char* kStyle = R"(
body{font-family:sans-serif;margin:1.5em auto;max-width:1250px;color:#222;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em} h2{border-bottom:2px solid #4e79a7;padding-bottom:.2em;margin-top:2em}
h3{margin-top:1.6em;color:#333} figure{margin:1em 0;display:inline-block;vertical-align:top}
figcaption{font-size:.9em;max-width:820px;margin-bottom:.3em} .note{color:#8a5a00;font-size:.9em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0} th,td{border:1px solid #ddd;padding:3px 6px;text-align:left}
th{background:#f3f5f8} table.sortable th{cursor:pointer} table.sortable th[data-dir=asc]::after{content:" \25B2"}
table.sortable th[data-dir=desc]::after{content:" \25BC"} table.ranked td{text-align:right;font-variant-numeric:tabular-nums}
nav li{margin:.2em 0} summary{cursor:pointer;font-weight:bold;margin:.6em 0}
)";

// Sorts a table by the clicked column: numbers by value (data-v), text otherwise.
const char* kScript = R"(
document.querySelectorAll('table.sortable').forEach(function (table) {
  table.querySelectorAll('thead th').forEach(function (th, col) {
    th.addEventListener('click', function () {
      var asc = th.dataset.dir !== 'asc';
      table.querySelectorAll('thead th').forEach(function (h) { delete h.dataset.dir; });
      th.dataset.dir = asc ? 'asc' : 'desc';
      var body = table.tBodies[0];
      var key = function (row) { var c = row.cells[col]; return c ? (c.dataset.v !== undefined ? c.dataset.v : c.textContent) : ''; };
      Array.prototype.slice.call(body.rows).sort(function (a, b) {
        var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
        var d = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : String(x).localeCompare(String(y));
        return asc ? d : -d;
      }).forEach(function (row) { body.appendChild(row); });
    });
  });
});
)";

} // namespace

std::string render_html(const Inputs& inputs, const ReportOptions& options) {
  const std::vector<Group> groups = group_inputs(inputs);
  if (groups.empty()) throw std::invalid_argument("nothing to report: no run, recording or benchmark result in the inputs");
  std::string title = groups.front().title;
  if (groups.size() > 1) title += " and " + std::to_string(groups.size() - 1) + " more";
  std::string body;
  std::string nav = "<nav><ul>";
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const Group& g = groups[gi];
    const std::string gid = "space-" + std::to_string(gi + 1);
    nav += "<li><a href=\"#" + gid + "\">" + escape(g.title) + "</a></li>";
    body += "<section class=\"space\" id=\"" + gid + "\"><h2>" + escape(g.title) + "</h2>";
    if (!g.runs.empty()) body += header_table(g);
    body += trajectory_section(g);
    body += gpu_pairs_section(g);
    body += model_section(g);
    for (std::size_t ri = 0; ri < g.runs.size(); ++ri)
      body += run_section(*g.runs[ri], options, gid + "-run-" + std::to_string(ri + 1));
    body += "</section>";
  }
  nav += "</ul></nav>";
  std::string sources;
  for (const Run& r : inputs.runs) sources += (sources.empty() ? "" : ", ") + (r.source.empty() ? "this run" : basename(r.source));
  for (const auto& c : inputs.curves)
    if (sources.find(basename(c.source)) == std::string::npos) sources += (sources.empty() ? "" : ", ") + basename(c.source);
  for (const auto& f : inputs.figures) sources += (sources.empty() ? "" : ", ") + basename(f.source);
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>memtune report: " + escape(title) +
         "</title><style>" + kStyle + "</style></head><body><h1>memtune report: " + escape(title) +
         "</h1><p>From " + escape(sources) + "; written by memtune " + kVersion +
         ". Everything is in this file: it opens offline.</p>" + (groups.size() > 1 ? nav : "") + body + "<script>" +
         kScript + "</script></body></html>\n";
}

} // namespace memtune::report
