// The heat map's axes and slice, and its cells.
#include <memtune/report/analysis.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace memtune::report {
namespace {

const search::Axis* find_axis(const Run& run, const std::string& name) {
  for (const auto& a : run.space.axes())
    if (a.name == name) return &a;
  return nullptr;
}

void check_requested(const Run& run, const std::vector<std::string>& requested) {
  if (requested.size() != 2) throw std::invalid_argument("--axes takes two axis names, e.g. --axes block_size,items");
  std::string known;
  for (const auto& a : run.space.axes()) known += (known.empty() ? "" : ", ") + a.name;
  for (const auto& name : requested)
    if (!find_axis(run, name))
      throw std::invalid_argument("--axes: " + run.source + " has no axis '" + name + "' (axes: " + known + ")");
  if (requested[0] == requested[1]) throw std::invalid_argument("--axes: name two different axes");
}

// A configuration without x and y: the key of its slice.
search::Config without(const search::Config& c, const std::string& x, const std::string& y) {
  search::Config out;
  for (const auto& [name, value] : c.values())
    if (name != x && name != y) out.set(name, value);
  return out;
}

// HeatmapSlice::score.
double score(std::size_t filled, std::size_t cells, double slice_best_s, double best_s) {
  const auto f = static_cast<double>(filled);
  const double near = best_s / slice_best_s;
  return cells ? f * f / static_cast<double>(cells) * near * near : 0.0;
}

} // namespace

std::optional<std::pair<std::string, std::string>> heatmap_axes(const Run& run, const std::vector<AxisEffect>& effects,
                                                                const std::vector<std::string>& requested) {
  if (!requested.empty()) {
    check_requested(run, requested);
    return std::pair{requested[0], requested[1]};
  }
  std::vector<const AxisEffect*> candidates;
  for (const auto& e : effects)
    if (e.values.size() >= 2) candidates.push_back(&e);
  if (candidates.size() < 2) return std::nullopt;
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const AxisEffect* a, const AxisEffect* b) { return a->best_ratio > b->best_ratio; });
  return std::pair{candidates[0]->axis, candidates[1]->axis};
}

HeatmapSlice fullest_slice(const Run& run, const std::string& x_axis, const std::string& y_axis) {
  struct Tally {
    std::size_t ok = 0;
    double best = std::numeric_limits<double>::infinity();
  };
  std::map<search::Config, Tally> slices;
  for (const auto& t : run.trials) {
    if (!t.ok()) continue;
    Tally& s = slices[without(t.config, x_axis, y_axis)];
    ++s.ok;
    s.best = std::min(s.best, *t.time_s);
  }
  if (slices.empty()) throw std::invalid_argument("no successful trial: nothing to map");
  const std::size_t cells = run.space.axis(x_axis).values.size() * run.space.axis(y_axis).values.size();
  const double best_s = run.best()->time_s.value();
  HeatmapSlice chosen;
  for (const auto& [others, tally] : slices) {
    const double s = score(tally.ok, cells, tally.best, best_s);
    if (chosen.filled == 0 || s > chosen.score + 1e-12) chosen = {x_axis, y_axis, others, tally.ok, cells, s};
  }
  return chosen;
}

std::optional<HeatmapSlice> heatmap_choice(const Run& run, const std::vector<AxisEffect>& effects,
                                           const std::vector<std::string>& requested) {
  if (!requested.empty()) {
    check_requested(run, requested);
    return fullest_slice(run, requested[0], requested[1]);
  }
  std::vector<const AxisEffect*> candidates;
  for (const auto& e : effects)
    if (e.values.size() >= 2) candidates.push_back(&e);
  // Importance first, so that among equally full maps the axes that matter win.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const AxisEffect* a, const AxisEffect* b) { return a->best_ratio > b->best_ratio; });
  std::optional<HeatmapSlice> best;
  double best_importance = 0.0;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    for (std::size_t j = i + 1; j < candidates.size(); ++j) {
      HeatmapSlice s = fullest_slice(run, candidates[i]->axis, candidates[j]->axis);
      const double importance = std::log(candidates[i]->best_ratio) + std::log(candidates[j]->best_ratio);
      if (!best || s.score > best->score + 1e-9 || (std::abs(s.score - best->score) <= 1e-9 && importance > best_importance)) {
        best = std::move(s);
        best_importance = importance;
      }
    }
  return best;
}

Heatmap heatmap(const Run& run, const HeatmapSlice& slice) {
  const search::Trial* best = run.best();
  if (!best) throw std::invalid_argument("no successful trial: nothing to map");
  std::map<search::Config, const search::Trial*> by_config;
  for (const auto& t : run.trials) by_config[t.config] = &t;
  const search::Axis& ax = run.space.axis(slice.x_axis);
  const search::Axis& ay = run.space.axis(slice.y_axis);
  Heatmap h;
  h.x_axis = slice.x_axis;
  h.y_axis = slice.y_axis;
  h.best_s = *best->time_s;
  h.slice_best_s = std::numeric_limits<double>::infinity();
  for (const auto v : ax.values) h.x_labels.push_back(ax.format(v));
  for (const auto v : ay.values) h.y_labels.push_back(ay.format(v));
  for (const auto& a : run.space.axes())
    if (slice.others.has(a.name))
      h.fixed += (h.fixed.empty() ? "" : " ") + a.name + "=" + a.format(slice.others.at(a.name));
  for (const auto yv : ay.values) {
    std::vector<HeatCell> row;
    for (const auto xv : ax.values) {
      search::Config c = slice.others;
      c.set(slice.x_axis, xv);
      c.set(slice.y_axis, yv);
      HeatCell cell;
      cell.config_text = run.space.format(c);
      if (const auto it = by_config.find(c); it != by_config.end()) {
        cell.time_s = it->second->time_s;
        cell.status = it->second->ok() ? "ok" : it->second->status;
        cell.reason = it->second->reason;
      } else if (const auto why = run.space.violation(c)) {
        cell.status = "invalid";
        cell.reason = *why;
      } else {
        cell.status = "not evaluated";
      }
      if (cell.time_s) {
        ++h.filled;
        h.slice_best_s = std::min(h.slice_best_s, *cell.time_s);
      }
      ++h.total;
      row.push_back(std::move(cell));
    }
    h.cells.push_back(std::move(row));
  }
  if (!h.filled) h.slice_best_s = h.best_s;
  return h;
}

Heatmap heatmap(const Run& run, const std::string& x_axis, const std::string& y_axis) {
  return heatmap(run, fullest_slice(run, x_axis, y_axis));
}

} // namespace memtune::report
