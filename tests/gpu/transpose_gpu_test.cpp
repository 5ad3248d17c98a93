// Every transpose candidate, launched on the GPU at odd shapes (one element,
// a single row or column, partial tiles), must equal the CPU reference
// exactly; and at 4096 x 4096 the best is held against the copy ceiling
// measured in the same run, with the article's lesson measured: the padded
// tile beats the unpadded one.
#include <memtune/templates/transpose.hpp>
#include <memtune/tune/tuner.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <iostream>
#include <limits>

TEST_CASE("transpose: every candidate is verified at odd shapes") {
  for (const memtune::Problem& p : {memtune::Problem{{"rows", 1}, {"cols", 1}}, memtune::Problem{{"rows", 1}, {"cols", 4099}},
                                    memtune::Problem{{"rows", 3001}, {"cols", 1}}, memtune::Problem{{"rows", 1000}, {"cols", 3001}}}) {
    CAPTURE(memtune::format_problem(p));
    const memtune::TuningResult r = memtune::tune(memtune::templates::transpose_description(), p, quick_options());
    check_every_candidate_ok(r); // nothing here needs more than the device has
  }
}

TEST_CASE("transpose at 4096 x 4096: the best against the copy ceiling, padded beats unpadded") {
  memtune::TuneOptions o = quick_options();
  o.measure.min_samples = 10;
  o.measure.max_samples = 30;
  o.measure.max_seconds = 0.2;
  const memtune::TuningResult r =
      memtune::tune(memtune::templates::transpose_description(), {{"rows", 4096}, {"cols", 4096}}, o);
  check_whole_space_verified(r);
  REQUIRE(r.ceiling.has_value());
  const auto* best = r.best();
  REQUIRE(best != nullptr);
  const double fraction = best->gbps / r.ceiling->gbps;
  // The best time of the article's 32 x 32 tiles, padded and not.
  double padded = std::numeric_limits<double>::infinity(), unpadded = padded;
  for (const auto& e : r.evaluations) {
    if (!e.ok() || e.config.at("tile") != 32) continue;
    double& best_of_kind = e.config.at("pad") == 1 ? padded : unpadded;
    best_of_kind = std::min(best_of_kind, e.timing->median_s);
  }
  std::cout << "transpose 4096 x 4096: best " << r.space.format(best->config) << " " << best->timing->median_s * 1e6
            << " us, " << best->gbps << " GB/s = " << fraction * 100 << "% of the copy ceiling (" << r.ceiling->gbps
            << " GB/s); tile 32: padded " << padded * 1e6 << " us, unpadded " << unpadded * 1e6 << " us\n  "
            << memtune::rationale(r) << "\n";
  CHECK(best->config.at("pad") == 1);
  CHECK(padded < unpadded);
  CHECK(fraction >= 0.70);
}
