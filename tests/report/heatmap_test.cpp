#include <memtune/report/analysis.hpp>

#include <doctest/doctest.h>

using namespace memtune;
using namespace memtune::report;

namespace {

// a x b x c, 3 x 3 x 2. c=1 holds the best (1.0) but only `ok_at_c1` of its
// nine cells succeed (the others fail to compile, as constraints and
// failures leave filter's best slice); c=0 succeeds everywhere, from `c0_s`.
Run run_with_sparse_best(int ok_at_c1, double c0_s) {
  Run r;
  r.source = "sparse.json";
  r.space.add(search::Axis::ordinal("a", {0, 1, 2}));
  r.space.add(search::Axis::ordinal("b", {0, 1, 2}));
  r.space.add(search::Axis::ordinal("c", {0, 1}));
  int c1 = 0;
  for (const auto& config : r.space.enumerate()) {
    search::Trial t;
    t.config = config;
    const double ab = 0.1 * static_cast<double>(config.at("a") + config.at("b"));
    if (config.at("c") == 0) t.time_s = c0_s + ab;
    else if (c1++ < ok_at_c1) t.time_s = 1.0 + ab;
    else t.status = "compile_failed";
    r.trials.push_back(t);
  }
  return r;
}

} // namespace

TEST_CASE("heat map: the slice is the one with the most ok cells, not the best configuration's") {
  const Run r = run_with_sparse_best(2, 1.05);
  const HeatmapSlice s = fullest_slice(r, "a", "b");
  CHECK(s.others == search::Config{{"c", 0}});
  CHECK(s.filled == 9);
  CHECK(s.cells == 9);
  const Heatmap h = heatmap(r, s);
  CHECK(h.fixed == "c=0");
  CHECK(h.filled == 9);
  CHECK(h.total == 9);
  CHECK(h.best_s == doctest::Approx(1.0));       // colours stay relative to the run's best
  CHECK(h.slice_best_s == doctest::Approx(1.05)); // and the caption says how far this slice is from it
}

TEST_CASE("heat map: a nearly full slice around the best beats a full one of slow corners") {
  const Run r = run_with_sparse_best(8, 2.0); // 8 of 9 at 1.0x against 9 of 9 at 2x
  const HeatmapSlice s = fullest_slice(r, "a", "b");
  CHECK(s.others == search::Config{{"c", 1}});
  CHECK(s.filled == 8);
  CHECK(heatmap(r, s).slice_best_s == doctest::Approx(1.0));
}

TEST_CASE("heat map: without --axes every pair is tried and the fullest wins; named axes are checked") {
  const Run r = run_with_sparse_best(2, 1.05);
  const auto effects = axis_effects(r);
  const auto chosen = heatmap_choice(r, effects, {});
  REQUIRE(chosen);
  // (a, b) at c=0 is full (9 of 9); a pair with c has 6 cells and at most 5 ok.
  CHECK(chosen->x_axis == "a");
  CHECK(chosen->y_axis == "b");
  CHECK(chosen->filled == 9);
  const auto asked = heatmap_choice(r, effects, {"c", "a"});
  REQUIRE(asked);
  CHECK(asked->x_axis == "c");
  CHECK(asked->cells == 6);
  CHECK_THROWS_WITH_AS((void)heatmap_choice(r, effects, {"a", "nope"}),
                       doctest::Contains("no axis 'nope' (axes: a, b, c)"), std::invalid_argument);
  CHECK_THROWS_AS((void)heatmap_choice(r, effects, {"a", "a"}), std::invalid_argument);
}
