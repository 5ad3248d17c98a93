#pragma once
// Shared by the GPU tests: tuning options with few samples (correctness, not
// timing, is under test) and a compile cache of their own; and the checks
// every whole-space run must pass.
#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <filesystem>

inline memtune::TuneOptions quick_options() {
  memtune::TuneOptions o;
  o.measure.min_samples = 3;
  o.measure.max_samples = 3;
  o.measure.max_seconds = 0.01;
  o.measure.warmup = 1;
  o.cache_folder = std::filesystem::temp_directory_path() / "memtune-gpu-test-cache";
  return o;
}

// Every configuration of the space was evaluated, none produced a wrong result
// or failed to launch (resource failures are legitimate), the occupancy
// calculator fed with the driver's limits agrees with the driver on every
// candidate that ran, and something succeeded.
inline void check_whole_space_verified(const memtune::TuningResult& r) {
  CHECK(r.aborted.empty());
  REQUIRE(r.evaluations.size() == r.space.enumerate().size());
  for (const auto& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CAPTURE(e.reason);
    CHECK(e.status != memtune::Status::wrong_result);
    CHECK(e.status != memtune::Status::launch_failed);
    if (e.ok()) CHECK(e.occupancy.blocks_per_sm == e.driver_blocks_per_sm);
  }
  CHECK(r.best() != nullptr);
}

// check_whole_space_verified, and every candidate succeeded: for problems
// where nothing needs more than the device has.
inline void check_every_candidate_ok(const memtune::TuningResult& r) {
  check_whole_space_verified(r);
  for (const auto& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CAPTURE(e.reason);
    CHECK(e.ok());
  }
}
