#pragma once
// The isolation tests' run: the scripted description (tests/assets/descriptions/
// scripted.json) tuned through the scripted worker (scripted_worker.cpp), which
// plays the GPU; everything else is real.
#include "../support/asset_description.hpp"

#include <memtune/tune/tuner.hpp>

#include <cstdint>
#include <filesystem>

inline const memtune::KernelDescription& scripted() { return asset_description("scripted.json"); }

inline memtune::TuneOptions scripted_options() {
  memtune::TuneOptions o;
  o.isolation.worker = MEMTUNE_TEST_SCRIPTED_WORKER;
  o.isolation.candidate_timeout_s = 1.0; // the hanging candidates
  o.cache_folder = std::filesystem::temp_directory_path() / "memtune-isolation-test-cache";
  o.compile_threads = 2;
  return o;
}

// The status the scripted worker's `behaviour` axis gives a candidate
// (scripted_worker.cpp: 1 crash, 2 hang, 3 sticky error, 4 exit, 5 floods its output but runs, 6 a wrong value).
inline const char* behaviour_status(std::int64_t behaviour) {
  switch (behaviour) {
  case 1: case 3: case 4: return "launch_failed";
  case 2: return "timeout";
  case 6: return "wrong_result";
  default: return "ok";
  }
}
