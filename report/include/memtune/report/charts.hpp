#pragma once
// The report's plots, each one self-contained SVG markup (svg.hpp) with
// hover text on every mark. Inputs are the numbers of analysis.hpp; nothing
// here reads files.
#include <memtune/report/analysis.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune::report::charts {

// Cells coloured by time over the best (log scale, brightest = fastest);
// failed, invalid and missing cells in greys, all with hover text.
[[nodiscard]] std::string heatmap(const Heatmap& h);

// One small panel per axis (most important first): per value, the best time
// (dot) and the ok trials' interquartile range (bar), over the best overall.
[[nodiscard]] std::string axis_effects(const std::vector<AxisEffect>& effects, double best_s);

// Best so far over the optimum against evaluations.
struct Series {
  std::string label;
  std::vector<double> ratio;             // index k-1: best so far / optimum after k evaluations (NaN: none yet)
  std::vector<double> band_lo, band_hi;  // optional interquartile band, same length
};
// The optimum line (y = 1) and the 5% band are always drawn.
[[nodiscard]] std::string trajectory(const std::vector<Series>& series, double optimum_s,
                                     const std::string& optimum_label);

// Log-log scatter of paired times with the y = x diagonal; the title carries
// Spearman's rho.
[[nodiscard]] std::string scatter(const std::vector<Pair>& pairs, const std::string& x_title,
                                  const std::string& y_title, const std::string& title);

// Log-log scatter of time per launch against joules per launch, the Pareto
// front as a line through its points (orange), hover text on every point.
[[nodiscard]] std::string energy_scatter(const EnergyFront& front);

// Horizontal bars of GB/s with reference lines (copy ceiling, peak), each
// bar's value written at its end. The value axis starts at 0 unless `zoom`
// and the bars lie close together far from 0 (the fastest configurations
// within a few % of each other): then at a round value one spread of the bars
// below the shortest (when that is above a fifth of the axis), with a break
// mark on the axis and the title saying where it starts.
struct Bar {
  std::string label, tooltip;
  double value;
};
struct Reference {
  std::string label;
  double value;
  std::string colour;
};
[[nodiscard]] std::string bars(const std::vector<Bar>& bars, const std::vector<Reference>& references,
                               const std::string& x_title, const std::string& aria, bool zoom = false);

} // namespace memtune::report::charts
