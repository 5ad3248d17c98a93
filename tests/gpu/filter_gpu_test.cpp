// Every filter candidate, launched on the GPU at odd sizes, must match the CPU
// reference; and the tuning loop must rank, time and keep its promises.
#include <memtune/cuda/context.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/tune/tuner.hpp>

#include "quick_options.hpp"

#include <doctest/doctest.h>

#include <filesystem>

TEST_CASE("filter: every candidate is verified at odd sizes") {
  for (std::int64_t n : {1LL, 31LL, 1000003LL}) {
    CAPTURE(n);
    check_whole_space_verified(memtune::tune(memtune::templates::filter_description(), {{"n", n}}, quick_options()));
  }
}

TEST_CASE("filter: other tap counts, including even and a single tap") {
  for (std::int64_t taps : {1LL, 2LL, 8LL, 33LL}) {
    CAPTURE(taps);
    memtune::TuneOptions o = quick_options();
    o.strategy = "random";
    o.budget = 40;
    const memtune::TuningResult r = memtune::tune(memtune::templates::filter_description(), {{"n", 100003}, {"taps", taps}}, o);
    REQUIRE(!r.evaluations.empty());
    for (const auto& e : r.evaluations) {
      CAPTURE(r.space.format(e.config));
      CAPTURE(e.reason);
      CHECK(e.status != memtune::Status::wrong_result);
    }
  }
}

TEST_CASE("tuning result: ranked by time, with a copy ceiling and occupancy") {
  memtune::TuneOptions o = quick_options();
  o.strategy = "random";
  o.budget = 20;
  const memtune::TuningResult r = memtune::tune(memtune::templates::filter_description(), {{"n", 1 << 22}}, o);
  REQUIRE(r.ceiling.has_value());
  CHECK(r.ceiling->gbps > 10.0);
  const auto rank = r.ranking();
  REQUIRE(rank.size() >= 2);
  for (std::size_t i = 1; i < rank.size(); ++i)
    CHECK(r.evaluations[rank[i - 1]].timing->median_s <= r.evaluations[rank[i]].timing->median_s);
  for (std::size_t i : rank) {
    const auto& e = r.evaluations[i];
    CHECK(e.occupancy.blocks_per_sm >= 1);
    CHECK(e.resources.registers > 0);
    CHECK(e.gbps > 0.0);
  }
}

TEST_CASE("measured bayes: the analytical model is the prior mean, and the result says so") {
  memtune::TuneOptions o = quick_options();
  o.strategy = "bayes";
  o.budget = 12;
  const memtune::TuningResult with = memtune::tune(memtune::templates::filter_description(), {{"n", 1 << 22}}, o);
  CHECK(with.search_prior == "analytical model");
  CHECK(with.aborted.empty());
  CHECK(with.evaluations.size() == 12);
  CHECK(with.best() != nullptr);
  o.model_prior = false;
  const memtune::TuningResult without = memtune::tune(memtune::templates::filter_description(), {{"n", 1 << 22}}, o);
  CHECK(without.search_prior == "none (--no-model-prior)");
  CHECK(without.evaluations.size() == 12);
}
