// The fault corpus on the GPU (tests/faults/faults.json): a tuning run over a
// space that mixes every fault with the good kernel. Every bad candidate ends
// with its status and a reason a user understands, the run finishes, the best
// is a good candidate, and the good kernel measured right after a hang and
// right after an illegal address takes its normal time (the GPU is free and
// healthy again). Prints one line per candidate for the GPU check's log.
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>
#include <memtune/tune/tuner.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace memtune;

TEST_CASE("fault corpus: every bad candidate classified with its reason, the run goes on, the GPU is normal after") {
  const KernelDescription faults = load_description(std::filesystem::path(MEMTUNE_TEST_FAULTS_DIR) / "faults.json");
  TuneOptions o;
  o.cache_folder = std::filesystem::temp_directory_path() / "memtune-gpu-test-cache";
  const TuningResult r = tune(faults, {}, o);
  CHECK(r.aborted.empty());
  CHECK(r.isolation.rfind("worker process", 0) == 0);
  REQUIRE(r.evaluations.size() == 34);

  // The status each fault's bad variant must end with, and words its reason must hold.
  const std::map<std::string, std::pair<Status, std::vector<std::string>>> expected{
      {"none", {Status::ok, {}}},
      {"compile_error", {Status::compile_failed, {"must not compile"}}},
      {"too_much_shared_memory", {Status::exceeds_device_limits, {"bytes of shared memory exceed"}}},
      {"too_many_threads", {Status::exceeds_device_limits, {"launch.block[0] is 2048 threads: a block has at most 1024 in x"}}},
      {"too_many_registers", {Status::exceeds_device_limits, {"registers x 1024 threads exceed"}}},
      {"launch_bounds", {Status::exceeds_device_limits, {"__launch_bounds__", "at most 256"}}},
      {"illegal_read", {Status::launch_failed, {"CUDA_ERROR_ILLEGAL_ADDRESS", "outside its buffers", "fresh worker"}}},
      {"illegal_write", {Status::launch_failed, {"CUDA_ERROR_ILLEGAL_ADDRESS", "fresh worker"}}},
      {"misaligned", {Status::launch_failed, {"CUDA_ERROR_MISALIGNED_ADDRESS", "not aligned", "fresh worker"}}},
      {"trap", {Status::launch_failed, {"CUDA_ERROR_", "fresh worker"}}},
      {"assert_fails", {Status::launch_failed, {"CUDA_ERROR_ASSERT", "assert", "fresh worker"}}},
      {"infinite_loop", {Status::timeout, {"still running after the limit", "killed"}}},
      {"wrong_result", {Status::wrong_result, {"outputs wrong"}}},
      {"nan_output", {Status::wrong_result, {"1 of the outputs wrong"}}},
      {"unwritten_output", {Status::wrong_result, {"1 of the outputs wrong"}}},
      {"changes_between_launches", {Status::wrong_result, {"changes between launches"}}},
      {"write_past_end", {Status::wrong_result, {"wrote outside 'out'", "after its end"}}},
  };
  const search::Axis& fault_axis = r.space.axis("fault");
  const search::Axis& variant_axis = r.space.axis("variant");
  std::vector<double> good_times;
  std::map<std::string, double> good_after; // the good kernel's time right after each fault
  for (const Evaluation& e : r.evaluations) {
    const std::string fault = fault_axis.format(e.config.at("fault"));
    const bool bad = variant_axis.format(e.config.at("variant")) == "bad";
    std::printf("fault-corpus %-26s %-5s %-22s %9s  %s\n", fault.c_str(), bad ? "bad" : "good", to_string(e.status),
                e.timing ? (std::to_string(e.timing->median_s * 1e6).substr(0, 7) + "us").c_str() : "-",
                e.reason.substr(0, 160).c_str());
    CAPTURE(fault);
    CAPTURE(bad);
    CAPTURE(e.reason);
    if (!bad || fault == "none") {
      CHECK(e.status == Status::ok);
      if (e.timing) {
        good_times.push_back(e.timing->median_s);
        if (!bad) good_after[fault] = e.timing->median_s;
      }
      continue;
    }
    const auto& [status, words] = expected.at(fault);
    CHECK(e.status == status);
    for (const std::string& w : words) CHECK(e.reason.find(w) != std::string::npos);
  }
  REQUIRE(r.best());
  const std::string best_fault = fault_axis.format(r.best()->config.at("fault"));
  CHECK((best_fault == "none" || variant_axis.format(r.best()->config.at("variant")) == "good"));
  // illegal read, illegal write, misaligned, trap, assert, the hang: six fresh workers at least.
  CHECK(r.worker_restarts >= 6);

  // The GPU is normal again: the good kernel right after the hang and right
  // after the illegal address within 15 % of its median over the run.
  REQUIRE(good_times.size() >= 10);
  std::sort(good_times.begin(), good_times.end());
  const double median = good_times[good_times.size() / 2];
  for (const char* after : {"infinite_loop", "illegal_read"}) {
    CAPTURE(after);
    REQUIRE(good_after.count(after));
    const double ratio = good_after[after] / median;
    std::printf("fault-corpus good kernel after %s: %.2f us, median of the good kernel %.2f us, ratio %.3f\n", after,
                good_after[after] * 1e6, median * 1e6, ratio);
    CHECK(ratio > 0.85);
    CHECK(ratio < 1.15);
  }
}

TEST_CASE("a description made in C++ runs in a worker too: its illegal address costs one candidate") {
  // Every part of it is data (no verify_with callback, no custom fill), so it
  // crosses to memtune-worker as KernelDescription::to_data().
  KernelBuilder b("scale_or_fault_in_cpp");
  b.source("scale.cu", "template <int B, bool FAULT> __global__ void scale(const float* x, float* y, int n) {\n"
                       "  int i = blockIdx.x * B + threadIdx.x;\n"
                       "  if (FAULT && i == 0) y[-(1 << 28)] = 1.0f;\n"
                       "  if (i < n) y[i] = 2.0f * x[i];\n}\n")
      .kernel("scale<{B}, {FAULT}>")
      .size("n", 1 << 20, "elements")
      .parameter(search::Axis::ordinal("B", {128, 256}))
      .parameter(search::Axis::ordinal("FAULT", {0, 1}))
      .block("B")
      .grid("ceil_div(n, B)")
      .buffer("x", ElementType::f32, "n", BufferRole::in)
      .buffer("y", ElementType::f32, "n", BufferRole::out)
      .scalar("n", ElementType::i32, "n")
      .verify_with_config({{"B", 128}, {"FAULT", 0}}, {0.0, 1e-6});
  const KernelDescription d = b.build();
  TuneOptions o;
  o.cache_folder = std::filesystem::temp_directory_path() / "memtune-gpu-test-cache";
  const TuningResult r = tune(d, {}, o);
  CHECK(r.isolation.rfind("worker process", 0) == 0);
  REQUIRE(r.evaluations.size() == 4);
  for (const Evaluation& e : r.evaluations) {
    INFO(e.reason);
    if (e.config.at("FAULT") == 1) {
      CHECK(e.status == Status::launch_failed);
      CHECK(e.reason.find("fresh worker") != std::string::npos);
    } else {
      CHECK(e.status == Status::ok);
    }
  }
}
