#include <memtune/report/analysis.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace memtune;
using namespace memtune::report;

namespace {

// block_size 64/128/256 x layout aos/soa, block_size=256 with aos forbidden;
// soa is always 2x faster, block size matters less.
Run small_run() {
  Run r;
  r.source = "small.json";
  r.template_name = "t";
  r.space.add(search::Axis::ordinal("block_size", {64, 128, 256}));
  r.space.add(search::Axis::categorical("layout", {"aos", "soa"}));
  r.space.add(search::Axis::ordinal("pad", {0, 1}));
  r.space.require(search::Constraint::implies(search::axis("block_size") >= search::Expr(256),
                                              search::axis("layout") == search::Expr(1))
                      .because("no aos at 256"));
  for (const auto& c : r.space.enumerate()) {
    search::Trial t;
    t.config = c;
    if (c.at("block_size") == 64 && c.at("pad") == 1) {
      t.status = "compile_failed";
      t.reason = "too many registers";
    } else {
      t.time_s = (c.at("layout") == 1 ? 1.0 : 2.0) * (1.0 + 0.1 * static_cast<double>(c.at("block_size") / 64)) *
                 (1.0 + 0.01 * static_cast<double>(c.at("pad")));
    }
    r.trials.push_back(t);
  }
  return r;
}

} // namespace

TEST_CASE("analysis: per-axis effects rank the axis that matters first, and the heat map takes the two that matter") {
  const Run r = small_run();
  const auto effects = axis_effects(r);
  REQUIRE(effects.size() == 3);
  const auto& layout = *std::find_if(effects.begin(), effects.end(), [](auto& e) { return e.axis == "layout"; });
  CHECK(layout.best_ratio == doctest::Approx(2.0));
  CHECK(layout.values[1].label == "soa");
  CHECK(layout.values[0].failed == 1); // block_size=64 pad=1 aos
  const auto axes = heatmap_axes(r, effects, {});
  REQUIRE(axes);
  CHECK(axes->first == "layout");
  CHECK(axes->second == "block_size");
  CHECK_THROWS_WITH_AS((void)heatmap_axes(r, effects, {"layout", "nope"}),
                       doctest::Contains("no axis 'nope' (axes: block_size, layout, pad)"), std::invalid_argument);
}

TEST_CASE("analysis: the heat map slice (the fullest, here the best's) says why cells are empty") {
  const Run r = small_run();
  const Heatmap h = heatmap(r, "block_size", "layout");
  CHECK(h.fixed == "pad=0");
  REQUIRE(h.cells.size() == 2);    // layout rows
  REQUIRE(h.cells[0].size() == 3); // block_size columns
  CHECK(h.cells[0][2].status == "invalid"); // aos at 256
  CHECK(h.cells[0][2].reason.find("no aos at 256") != std::string::npos);
  CHECK(h.cells[1][0].time_s);
  CHECK(h.cells[1][0].config_text == "block_size=64 layout=soa pad=0");
  const Heatmap padded = heatmap(r, "block_size", "pad");
  CHECK(padded.cells[1][0].status == "compile_failed");
}

TEST_CASE("analysis: exact random-search quantiles agree with enumerating every order of a tiny space") {
  Run r;
  r.space.add(search::Axis::ordinal("x", {0, 1, 2, 3, 4}));
  const double times[] = {5, 3, 4, 1, 2};
  for (int i = 0; i < 5; ++i) {
    search::Trial t;
    t.config = {{"x", i}};
    if (i == 2) t.status = "launch_failed";
    else t.time_s = times[i];
    r.trials.push_back(t);
  }
  const QuantileCurve q = random_search_quantiles(r);
  std::vector<int> order(5);
  std::iota(order.begin(), order.end(), 0);
  std::vector<std::vector<double>> best_after(5);
  do {
    double best = INFINITY;
    for (int k = 0; k < 5; ++k) {
      if (r.trials[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])].ok())
        best = std::min(best, *r.trials[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])].time_s);
      best_after[static_cast<std::size_t>(k)].push_back(best);
    }
  } while (std::next_permutation(order.begin(), order.end()));
  for (std::size_t k = 0; k < 5; ++k) {
    auto v = best_after[k];
    std::sort(v.begin(), v.end());
    // The smallest t with P(best <= t) >= p.
    auto at = [&](double p) { return v[static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1]; };
    CHECK(q.median_s[k] == doctest::Approx(at(0.5)));
    CHECK(q.q1_s[k] == doctest::Approx(at(0.25)));
    CHECK(q.q3_s[k] == doctest::Approx(at(0.75)));
  }
  CHECK(q.median_s.back() == doctest::Approx(1.0));
}

TEST_CASE("analysis: best so far and paired times") {
  const Run r = small_run();
  const auto b = best_so_far(r.trials);
  REQUIRE(b.size() == r.trials.size());
  for (std::size_t i = 1; i < b.size(); ++i) CHECK(b[i].value_or(1e9) <= b[i - 1].value_or(1e9));
  Run other = r;
  for (auto& t : other.trials)
    if (t.ok()) *t.time_s *= 3;
  const auto pairs = paired_times(r, other);
  CHECK(pairs.size() == 8);
  CHECK(pairs[0].b_s == doctest::Approx(3 * pairs[0].a_s));
}

TEST_CASE("analysis: the Pareto front of time against energy keeps what no other beats in both, fastest first") {
  const std::vector<EnergyPoint> points{{"a", 1.0, 5.0}, {"b", 2.0, 3.0}, {"c", 2.5, 4.0}, {"d", 3.0, 1.0},
                                        {"e", 0.5, 9.0}, {"f", 3.0, 1.0}};
  // c is beaten by b (faster and more frugal); f ties d exactly and is kept.
  CHECK(pareto_front(points) == std::vector<std::size_t>{4, 0, 1, 3, 5});
  CHECK(pareto_front({}).empty());
}
