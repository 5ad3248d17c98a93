#include <memtune/io/number_text.hpp>
#include <memtune/report/charts.hpp>

#include <memtune/model/rank_correlation.hpp>
#include <memtune/report/svg.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace memtune::report::charts {
namespace {

using svg::Canvas;

std::string us(double seconds) { return number_text("%.2f us", seconds * 1e6); }
std::string times(double ratio) { return number_text("%.3gx", ratio); }

} // namespace

std::string heatmap(const Heatmap& h) {
  const double cell_w = std::clamp(440.0 / static_cast<double>(h.x_labels.size()), 28.0, 70.0);
  const double cell_h = std::clamp(300.0 / static_cast<double>(h.y_labels.size()), 18.0, 40.0);
  const svg::Frame f{90, 30, cell_w * static_cast<double>(h.x_labels.size()), cell_h * static_cast<double>(h.y_labels.size())};
  Canvas c(f.right() + 150, f.bottom() + 60, "heat map of time over " + h.x_axis + " and " + h.y_axis);
  double worst = 1.0;
  for (const auto& row : h.cells)
    for (const auto& cell : row)
      if (cell.time_s) worst = std::max(worst, *cell.time_s / h.best_s);
  const double span = std::log(std::max(worst, 1.0001));
  for (std::size_t yi = 0; yi < h.cells.size(); ++yi)
    for (std::size_t xi = 0; xi < h.cells[yi].size(); ++xi) {
      const HeatCell& cell = h.cells[yi][xi];
      const double x = f.left + cell_w * static_cast<double>(xi), y = f.top + cell_h * static_cast<double>(yi);
      std::string fill = "#d9d9d9", tip = cell.config_text + ": ";
      if (cell.time_s) {
        const double ratio = *cell.time_s / h.best_s;
        fill = svg::viridis(1.0 - std::log(ratio) / span);
        tip += us(*cell.time_s) + " (" + times(ratio) + " the best)";
      } else if (cell.status == "invalid" || cell.status == "not evaluated") {
        fill = "#f0f0f0";
        tip += cell.status + (cell.reason.empty() ? "" : ": " + cell.reason);
      } else {
        fill = "#bdbdbd";
        tip += cell.status + (cell.reason.empty() ? "" : ": " + cell.reason);
      }
      c.rect(x + 0.5, y + 0.5, cell_w - 1, cell_h - 1, fill, tip);
      if (cell.time_s && cell_w >= 34 && cell_h >= 16) {
        const double ratio = *cell.time_s / h.best_s;
        const double t = 1.0 - std::log(ratio) / span;
        char label[16];
        std::snprintf(label, sizeof label, "%.2f", ratio);
        c.text(x + cell_w / 2, y + cell_h / 2 + 3.5, label, Canvas::Anchor::middle, 9, false, 0, t > 0.6 ? "#222" : "#fff");
      } else if (!cell.time_s && cell_w >= 20) {
        c.text(x + cell_w / 2, y + cell_h / 2 + 3.5, cell.status == "invalid" || cell.status == "not evaluated" ? "-" : "x",
               Canvas::Anchor::middle, 9, false, 0, "#777");
      }
    }
  svg::band_labels_bottom(c, f, h.x_labels, h.x_axis);
  svg::band_labels_left(c, f, h.y_labels, h.y_axis);
  // Colour legend: time over the best, fastest at the top.
  const double lx = f.right() + 30, lh = std::min(f.height, 200.0);
  for (int i = 0; i < 40; ++i) {
    const double t0 = i / 40.0;
    c.rect(lx, f.top + lh * t0, 14, lh / 40 + 0.5, svg::viridis(1.0 - t0));
  }
  c.text(lx + 20, f.top + 8, "1x (best)", Canvas::Anchor::start, 10);
  c.text(lx + 20, f.top + lh, times(worst), Canvas::Anchor::start, 10);
  c.text(lx, f.top - 10, "time / best", Canvas::Anchor::start, 10, true);
  c.rect(lx, f.top + lh + 14, 14, 10, "#bdbdbd");
  c.text(lx + 20, f.top + lh + 23, "failed", Canvas::Anchor::start, 10);
  c.rect(lx, f.top + lh + 30, 14, 10, "#f0f0f0");
  c.text(lx + 20, f.top + lh + 39, "invalid / not run", Canvas::Anchor::start, 10);
  return c.str();
}

std::string axis_effects(const std::vector<AxisEffect>& effects, double best_s) {
  std::vector<const AxisEffect*> order;
  for (const auto& e : effects) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const AxisEffect* a, const AxisEffect* b) { return a->best_ratio > b->best_ratio; });
  double worst = 1.05;
  for (const auto* e : order)
    for (const auto& v : e->values)
      if (v.q3_s) worst = std::max(worst, *v.q3_s / best_s);
  const std::size_t columns = std::min<std::size_t>(3, std::max<std::size_t>(order.size(), 1));
  const std::size_t rows = (order.size() + columns - 1) / columns;
  const double pw = 250, ph = 200;
  Canvas c(pw * static_cast<double>(columns), ph * static_cast<double>(rows), "effect of each axis");
  for (std::size_t i = 0; i < order.size(); ++i) {
    const AxisEffect& e = *order[i];
    const double ox = pw * static_cast<double>(i % columns), oy = ph * static_cast<double>(i / columns);
    const svg::Frame f{ox + 56, oy + 40, pw - 72, ph - 84};
    const svg::Scale y = svg::Scale::log(1.0 / 1.02, worst * 1.05, f.bottom(), f.top);
    for (const double t : y.ticks(4)) {
      c.line(f.left, y(t), f.right(), y(t), "#e6e6e6");
      c.text(f.left - 4, y(t) + 3.5, svg::format_number(t) + "x", Canvas::Anchor::end, 9);
    }
    c.line(f.left, f.bottom(), f.right(), f.bottom(), "#555");
    c.line(f.left, f.top, f.left, f.bottom(), "#555");
    // Two lines from the panel's left edge: an axis name of any length fits or is cut (whole on hover).
    c.label(ox + 8, oy + 14, e.axis, pw - 16, Canvas::Anchor::start, 11, true);
    c.label(ox + 8, oy + 28, "best per value spans " + times(e.best_ratio), pw - 16, Canvas::Anchor::start, 10);
    std::vector<std::string> labels;
    for (const auto& v : e.values) labels.push_back(v.label);
    svg::band_labels_bottom(c, f, labels, "");
    const double bw = std::min(18.0, f.width / static_cast<double>(labels.size()) * 0.5);
    for (std::size_t k = 0; k < e.values.size(); ++k) {
      const ValueEffect& v = e.values[k];
      const double x = svg::band_center(f.left, f.right(), k, e.values.size());
      const std::string tip = e.axis + "=" + v.label + ": " + std::to_string(v.ok) + " ok, " + std::to_string(v.failed) +
                              " failed" +
                              (v.best_s ? "; best " + us(*v.best_s) + " (" + times(*v.best_s / best_s) + "), quartiles " +
                                              us(*v.q1_s) + " / " + us(*v.median_s) + " / " + us(*v.q3_s)
                                        : std::string("; none succeeded"));
      if (!v.best_s) {
        c.text(x, f.bottom() - 6, "x", Canvas::Anchor::middle, 10, false, 0, "#b00");
        continue;
      }
      c.rect(x - bw / 2, y(*v.q3_s / best_s), bw, std::max(1.0, y(*v.q1_s / best_s) - y(*v.q3_s / best_s)), "#9ecae1", tip);
      c.line(x - bw / 2, y(*v.median_s / best_s), x + bw / 2, y(*v.median_s / best_s), "#3182bd", 1.5);
      c.circle(x, y(*v.best_s / best_s), 4, "#e15759", tip);
    }
  }
  return c.str();
}

std::string trajectory(const std::vector<Series>& series, double optimum_s, const std::string& optimum_label) {
  std::size_t longest = 2;
  double worst = 1.2;
  for (const auto& s : series) {
    longest = std::max(longest, s.ratio.size());
    for (const double r : s.ratio)
      if (std::isfinite(r)) worst = std::max(worst, r);
  }
  // Past 3x the curves only say "far off"; the interesting part is near 1.
  const bool clipped = worst > 3.0;
  worst = std::min(worst, 3.0);
  const svg::Frame f{70, 20, 560, 260};
  Canvas c(f.right() + 300, f.bottom() + 50, "best so far against evaluations");
  const svg::Scale x = svg::Scale::linear(1, static_cast<double>(longest), f.left, f.right());
  const svg::Scale y = svg::Scale::log(0.98, worst * 1.02, f.bottom(), f.top);
  c.rect(f.left, y(1.05), f.width, y(1.0) - y(1.05), "#59a14f", "within 5% of the optimum", 0.18);
  svg::axes(c, f, x, y, "evaluations", clipped ? "best so far / optimum (clipped at 3x)" : "best so far / optimum");
  c.line(f.left, y(1.0), f.right(), y(1.0), "#59a14f", 1.5, "5,3");
  // Above the band: below the line it would sit on the tick labels.
  c.label(f.right() - 4, y(1.05) - 4, optimum_label + " (" + us(optimum_s) + "), 5% band shaded", f.width - 8,
          Canvas::Anchor::end, 10, false, 0, "#2f6f2a");
  auto clamp_y = [&](double r) { return y(std::min(r, worst)); };
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const std::string colour = svg::palette(i);
    if (!s.band_lo.empty()) {
      std::vector<svg::Point> poly;
      for (std::size_t k = 0; k < s.band_lo.size(); ++k)
        if (std::isfinite(s.band_lo[k]) && std::isfinite(s.band_hi[k])) poly.push_back({x(static_cast<double>(k + 1)), clamp_y(s.band_lo[k])});
      for (std::size_t k = s.band_hi.size(); k-- > 0;)
        if (std::isfinite(s.band_lo[k]) && std::isfinite(s.band_hi[k])) poly.push_back({x(static_cast<double>(k + 1)), clamp_y(s.band_hi[k])});
      if (poly.size() >= 3) c.polygon(poly, colour, 0.15);
    }
    // A step line: the best so far holds until the next improvement.
    std::vector<svg::Point> pts;
    std::size_t to5 = 0;
    for (std::size_t k = 0; k < s.ratio.size(); ++k) {
      if (!std::isfinite(s.ratio[k])) continue;
      const double px = x(static_cast<double>(k + 1));
      if (!pts.empty()) pts.push_back({px, pts.back().y});
      pts.push_back({px, clamp_y(s.ratio[k])});
      if (!to5 && s.ratio[k] <= 1.05) to5 = k + 1;
    }
    const std::string tip = s.label + (to5 ? ": within 5% after " + std::to_string(to5) + " evaluations" : ": never within 5%");
    if (!pts.empty()) c.polyline(pts, colour, 2, tip);
    c.rect(f.right() + 16, f.top + 18.0 * static_cast<double>(i), 12, 12, colour, tip);
    c.label(f.right() + 32, f.top + 18.0 * static_cast<double>(i) + 10, s.label, c.width() - f.right() - 36,
            Canvas::Anchor::start, 10);
  }
  return c.str();
}

std::string scatter(const std::vector<Pair>& pairs, const std::string& x_title, const std::string& y_title,
                    const std::string& title) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  std::vector<double> a, b;
  for (const Pair& p : pairs) {
    lo = std::min({lo, p.a_s, p.b_s});
    hi = std::max({hi, p.a_s, p.b_s});
    a.push_back(p.a_s);
    b.push_back(p.b_s);
  }
  const double rho = pairs.size() >= 2 ? spearman(a, b) : std::nan("");
  char stats[96];
  std::snprintf(stats, sizeof stats, "Spearman %.3f over %zu configurations", rho, pairs.size());
  const svg::Frame f{70, 46, 380, 300};
  Canvas c(f.right() + 30, f.bottom() + 50, title + ": " + stats);
  const svg::Scale x = svg::Scale::log(lo * 1e6 / 1.1, hi * 1e6 * 1.1, f.left, f.right());
  const svg::Scale y = svg::Scale::log(lo * 1e6 / 1.1, hi * 1e6 * 1.1, f.bottom(), f.top);
  c.label(8, 16, title, c.width() - 16, Canvas::Anchor::start, 12, true);
  c.label(8, 32, stats, c.width() - 16, Canvas::Anchor::start, 11);
  svg::axes(c, f, x, y, x_title, y_title);
  c.line(x(lo * 1e6 / 1.1), y(lo * 1e6 / 1.1), x(hi * 1e6 * 1.1), y(hi * 1e6 * 1.1), "#999", 1, "4,3");
  for (const Pair& p : pairs)
    c.circle(x(p.a_s * 1e6), y(p.b_s * 1e6), 3, "#4e79a7",
             p.config_text + ": " + us(p.a_s) + " vs " + us(p.b_s) + " (" + times(p.b_s / p.a_s) + ")", 0.7);
  return c.str();
}

std::string energy_scatter(const EnergyFront& e) {
  double t_lo = std::numeric_limits<double>::infinity(), t_hi = 0, j_lo = t_lo, j_hi = 0;
  for (const EnergyPoint& p : e.points) {
    t_lo = std::min(t_lo, p.time_s);
    t_hi = std::max(t_hi, p.time_s);
    j_lo = std::min(j_lo, p.joules);
    j_hi = std::max(j_hi, p.joules);
  }
  char stats[96];
  std::snprintf(stats, sizeof stats, "%zu configurations, %zu on the Pareto front", e.points.size(), e.front.size());
  const std::string head = "time against energy per launch";
  const svg::Frame f{70, 46, 380, 300};
  Canvas c(f.right() + 30, f.bottom() + 50, head + ": " + stats);
  if (e.points.empty()) return c.str();
  const svg::Scale x = svg::Scale::log(t_lo * 1e6 / 1.1, t_hi * 1e6 * 1.1, f.left, f.right());
  const svg::Scale y = svg::Scale::log(j_lo * 1e3 / 1.1, j_hi * 1e3 * 1.1, f.bottom(), f.top);
  c.label(8, 16, head, c.width() - 16, Canvas::Anchor::start, 12, true);
  c.label(8, 32, stats, c.width() - 16, Canvas::Anchor::start, 11);
  svg::axes(c, f, x, y, "time per launch (us)", "energy per launch (mJ)");
  const auto tip = [](const EnergyPoint& p) {
    char text[96];
    std::snprintf(text, sizeof text, ": %.4g us, %.4g mJ", p.time_s * 1e6, p.joules * 1e3);
    return p.config_text + text;
  };
  for (const EnergyPoint& p : e.points) c.circle(x(p.time_s * 1e6), y(p.joules * 1e3), 3, "#4e79a7", tip(p), 0.6);
  std::vector<svg::Point> line;
  for (std::size_t i : e.front) line.push_back({x(e.points[i].time_s * 1e6), y(e.points[i].joules * 1e3)});
  if (line.size() > 1) c.polyline(line, "#f28e2b", 1.5);
  for (std::size_t i : e.front)
    c.circle(x(e.points[i].time_s * 1e6), y(e.points[i].joules * 1e3), 4, "#f28e2b", "Pareto front: " + tip(e.points[i]));
  return c.str();
}

namespace {

double bars_start(const std::vector<Bar>& bars, const std::vector<Reference>& references, bool zoom) {
  if (!zoom || bars.empty()) return 0.0;
  double lo = bars.front().value, hi = lo, top = 0.0;
  for (const Bar& b : bars) {
    lo = std::min(lo, b.value);
    hi = std::max(hi, b.value);
  }
  top = hi;
  for (const Reference& r : references) top = std::max(top, r.value);
  // Drawn from 0, bars a few % apart look the same: start one spread of the
  // bars (at least 2%) below the shortest, rounded down to a tick, unless
  // that is near 0 anyway.
  const double below = lo - std::max(hi - lo, 0.02 * lo);
  if (lo <= 0 || below <= 0.2 * top) return 0.0;
  const std::vector<double> ticks = svg::Scale::linear(below, top, 0, 1).ticks();
  const double step = ticks.size() >= 2 ? ticks[1] - ticks[0] : below;
  return std::floor(below / step) * step;
}

} // namespace

std::string bars(const std::vector<Bar>& bars, const std::vector<Reference>& references, const std::string& x_title,
                 const std::string& aria, bool zoom) {
  double hi = 0;
  std::size_t label_chars = 4;
  for (const Bar& b : bars) {
    hi = std::max(hi, b.value);
    label_chars = std::max(label_chars, b.label.size());
  }
  for (const Reference& r : references) hi = std::max(hi, r.value);
  const double left = std::min(420.0, 12.0 + svg::text_width(std::string(label_chars, 'x'), 10));
  const svg::Frame f{left, 24, 420, std::max(40.0, 20.0 * static_cast<double>(bars.size()))};
  // Room on the right for the last reference's label ("peak 3352").
  Canvas c(f.right() + 80, f.bottom() + 56, aria);
  const double start = bars_start(bars, references, zoom);
  const svg::Scale x = svg::Scale::linear(start, start + (hi - start) * 1.08, f.left, f.right());
  for (const double t : x.ticks()) {
    c.line(x(t), f.top, x(t), f.bottom(), "#e6e6e6");
    c.text(x(t), f.bottom() + 14, svg::format_number(t), Canvas::Anchor::middle, 10);
  }
  c.line(f.left, f.top, f.left, f.bottom(), "#555");
  c.label(f.left + f.width / 2, f.bottom() + 32, x_title, f.width, Canvas::Anchor::middle, 11);
  if (start > 0)
    c.label(f.left + f.width / 2, f.bottom() + 47, "the axis starts at " + svg::format_number(start) + ", not at 0",
            f.width, Canvas::Anchor::middle, 11, true, 0, "#8a5a00");
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const double yc = svg::band_center(f.top, f.bottom(), i, bars.size());
    const double end = std::max(x(bars[i].value), f.left + 1);
    c.rect(f.left, yc - 7, end - f.left, 14, "#4e79a7", bars[i].tooltip);
    c.label(f.left - 5, yc + 3.5, bars[i].label, f.left - 10, Canvas::Anchor::end, 10);
    c.text(end - 3, yc + 3.5, svg::format_number(bars[i].value), Canvas::Anchor::end, 9, false, 0, "#fff");
  }
  if (start > 0) { // a break mark on the value axis: it does not start at 0
    c.line(f.left - 4, f.bottom() + 2, f.left + 4, f.bottom() - 6, "#555", 1.5);
    c.line(f.left - 4, f.bottom() + 7, f.left + 4, f.bottom() - 1, "#555", 1.5);
  }
  for (std::size_t i = 0; i < references.size(); ++i) {
    const Reference& r = references[i];
    c.line(x(r.value), f.top - 6, x(r.value), f.bottom(), r.colour, 2, "6,3");
    c.text(x(r.value) + (i % 2 ? 4 : -4), f.top - 10 + 0.0 * static_cast<double>(i), r.label + " " + svg::format_number(r.value),
           i % 2 ? Canvas::Anchor::start : Canvas::Anchor::end, 10, false, 0, r.colour);
  }
  return c.str();
}

} // namespace memtune::report::charts
