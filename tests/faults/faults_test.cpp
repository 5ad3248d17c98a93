// The fault corpus's CPU half (tests/faults/faults.json): without a GPU, the
// faults a compile and the GPU's limits reveal are classified before anything
// runs, with a reason a user understands; the others compile (they fail only
// when they run: tests/gpu/faults_gpu_test.cpp).
#include "../support/catalogue_target.hpp"

#include <memtune/description/description_json.hpp>
#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>

using namespace memtune;

TEST_CASE("fault corpus, modeled: compile and limit faults are classified, with their reasons") {
  const KernelDescription faults = load_description(std::filesystem::path(MEMTUNE_TEST_FAULTS_DIR) / "faults.json");
  TuneOptions o;
  o.cache_folder = std::filesystem::temp_directory_path() / "memtune-faults-test-cache";
  o.compile_threads = 2;
  const TuningResult r = tune_modeled(faults, {}, catalogue_target("h100-sxm"), o);
  REQUIRE(r.evaluations.size() == 34);

  // The reason each fault's bad variant must give (a part of it); the rest compile and fit.
  const std::map<std::string, std::pair<Status, std::string>> expected{
      {"compile_error", {Status::compile_failed, "this candidate must not compile"}},
      {"too_much_shared_memory", {Status::exceeds_device_limits, "1048576 bytes of shared memory exceed"}},
      {"too_many_threads", {Status::exceeds_device_limits, "launch.block[0] is 2048 threads: a block has at most 1024 in x"}},
      {"too_many_registers", {Status::exceeds_device_limits, "threads exceed 65536 registers per block"}},
      // The kernel's __launch_bounds__ is in its CUBIN: known without a GPU.
      {"launch_bounds", {Status::exceeds_device_limits, "blocks of 512 threads, but the compiled kernel allows at most 256"}},
  };
  const search::Axis& fault = r.space.axis("fault");
  const search::Axis& variant = r.space.axis("variant");
  for (const Evaluation& e : r.evaluations) {
    const std::string name = fault.format(e.config.at("fault"));
    const bool bad = variant.format(e.config.at("variant")) == "bad";
    CAPTURE(name);
    CAPTURE(bad);
    CAPTURE(e.reason);
    const auto it = expected.find(name);
    if (bad && it != expected.end()) {
      CHECK(e.status == it->second.first);
      CHECK(e.reason.find(it->second.second) != std::string::npos);
    } else {
      CHECK(e.status == Status::ok); // a runtime fault looks fine to a compiler
      CHECK(e.resources.registers > 0);
    }
  }
}
