#pragma once
// Tuning options for GPU tests: few samples (correctness, not timing, is
// under test) and a compile cache of their own.
#include <memtune/tuner.hpp>

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
