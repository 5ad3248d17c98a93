#pragma once
// The numbers behind the report's plots, computed from runs (no drawing here):
// per-axis effects, the heat map's slice, convergence curves, and the model
// against the measurement.
#include <memtune/report/inputs.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memtune::report {

// One value of one axis over every trial that has it.
struct ValueEffect {
  std::string label;                 // the value as people read it ("256", "soa")
  std::optional<double> best_s;      // fastest ok trial with this value
  std::optional<double> q1_s, median_s, q3_s; // quartiles of the ok trials' times
  std::size_t ok = 0, failed = 0;
};

struct AxisEffect {
  std::string axis;
  std::vector<ValueEffect> values;   // in axis order
  // How much the axis matters: the slowest per-value best over the fastest
  // (1 = choosing any value costs nothing when the rest are chosen well).
  double best_ratio = 1.0;
};

// Every axis with at least one ok trial, in the space's order.
[[nodiscard]] std::vector<AxisEffect> axis_effects(const Run& run);

// The two axes a heat map shows when they are asked for: `requested`
// checked (names known, two different ones; std::invalid_argument naming the
// known axes). Empty `requested`: the two with the largest best_ratio among
// axes with at least two values; nullopt when the space has fewer than two.
[[nodiscard]] std::optional<std::pair<std::string, std::string>> heatmap_axes(
    const Run& run, const std::vector<AxisEffect>& effects, const std::vector<std::string>& requested);

// What a heat map shows: axes x and y, every other axis at the value in
// `others`. Constraints and failures leave many slices mostly empty (the
// best configuration's slice of filter holds 2 ok cells of 12), so the slice
// is chosen by how much of it was measured and how near the best it lies.
struct HeatmapSlice {
  std::string x_axis, y_axis;
  search::Config others;             // the values of every axis but x and y
  std::size_t filled = 0;            // cells with an ok trial
  std::size_t cells = 0;             // |x values| * |y values|
  // filled^2 / cells * (run's best / slice's best)^2: a full 3x4 map beats
  // 13 cells scattered over 60, and a nearly full map around the best beats
  // a full one of slow corners (fdtd: 16 of 20 cells at 1.2x the best rather
  // than 16 of 16 at 1.5x).
  double score = 0.0;
};

// The slice over x and y with the highest score (the first of equals).
// Precondition: the run has an ok trial.
//   fullest_slice(run, "items", "packing").others  // {staging=smem block_size=128 ...}
[[nodiscard]] HeatmapSlice fullest_slice(const Run& run, const std::string& x_axis, const std::string& y_axis);

// The heat map to show: for `requested` axes (checked as heatmap_axes does)
// their fullest slice; otherwise, over every pair of axes with at least two
// values, the fullest slice of each, the highest score winning, ties to the
// pair whose axes matter most. nullopt when no pair exists.
[[nodiscard]] std::optional<HeatmapSlice> heatmap_choice(const Run& run, const std::vector<AxisEffect>& effects,
                                                         const std::vector<std::string>& requested);

struct HeatCell {
  std::string config_text;           // the whole configuration
  std::optional<double> time_s;      // ok trial
  std::string status;                // "ok", a failure status, "invalid" (violates a constraint), "not evaluated"
  std::string reason;
};
struct Heatmap {
  std::string x_axis, y_axis;
  std::vector<std::string> x_labels, y_labels;
  std::vector<std::vector<HeatCell>> cells; // [y][x]
  std::string fixed;                 // the other axes' values: "items=4 vec=4"
  std::size_t filled = 0, total = 0; // ok cells, all cells
  double best_s = 0.0;               // [s] the run's best (colours are relative to it)
  double slice_best_s = 0.0;         // [s] the best in this slice
};
[[nodiscard]] Heatmap heatmap(const Run& run, const HeatmapSlice& slice);
// The fullest slice over x and y.
[[nodiscard]] Heatmap heatmap(const Run& run, const std::string& x_axis, const std::string& y_axis);

// Best time so far after each evaluation [s] (nullopt until one succeeded).
[[nodiscard]] std::vector<std::optional<double>> best_so_far(const std::vector<search::Trial>& trials);

// Random search without replacement over a whole recorded space, exactly:
// for k = 1..N evaluations, the quartiles (0.25, 0.5, 0.75) of the best time
// found, over the orders. From P(best of k > t) = C(N - m(t), k) / C(N, k),
// m(t) = configurations at most t. Failed configurations count in N.
struct QuantileCurve {
  std::vector<double> q1_s, median_s, q3_s; // index k-1; +inf where that share of orders found nothing yet
};
[[nodiscard]] QuantileCurve random_search_quantiles(const Run& run);

// Configurations evaluated in two runs (matched by configuration), with both
// times; e.g. measured against modeled.
struct Pair {
  std::string config_text;
  double a_s, b_s;
};
[[nodiscard]] std::vector<Pair> paired_times(const Run& a, const Run& b);

// The ok trials with both a time and joules per launch, and which of them
// are on the Pareto front (no other is both faster and more frugal; ties
// kept), the front in order of time.
struct EnergyPoint {
  std::string config_text;
  double time_s, joules;
};
struct EnergyFront {
  std::vector<EnergyPoint> points;
  std::vector<std::size_t> front; // indices into points, fastest first
};
[[nodiscard]] EnergyFront energy_front(const Run& run);
// Indices of the non-dominated (time, joules) pairs, fastest first.
[[nodiscard]] std::vector<std::size_t> pareto_front(const std::vector<EnergyPoint>& points);

} // namespace memtune::report
