// tune_modeled on descriptions without a model (a user's kernel): compiled
// for registers, occupancy and limiter only; and the failures a description
// can cause (no launch, arguments that do not match the kernel).
#include <memtune/description/description_json.hpp>
#include <memtune/description/kernel_builder.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/tune/tuner.hpp>

#include "../support/catalogue_target.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace memtune;

namespace {

const std::filesystem::path kAssets = MEMTUNE_TEST_ASSETS_DIR "/descriptions";

TuneOptions no_cache() {
  TuneOptions o;
  o.use_cache = false;
  return o;
}

} // namespace

TEST_CASE("a kernel without a model: registers, occupancy and limiter, no time, nothing ranked") {
  KernelDescription d = load_description(kAssets / "transpose.json");
  d.model.reset(); // the asset's model section is tested in model_spec_test.cpp
  const TuningResult r = tune_modeled(d, {{"rows", 1000}}, catalogue_target("h100"), no_cache());
  CHECK_FALSE(r.measured);
  CHECK_FALSE(r.time_modeled);
  CHECK(r.template_name == "transpose_test");
  CHECK(r.kernel_fingerprint == d.fingerprint());
  CHECK(r.bytes_moved == 2ULL * 1000 * 1024 * 4);
  REQUIRE(r.evaluations.size() == 24);
  for (const auto& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CHECK(e.ok());
    CHECK_FALSE(e.timing.has_value());
    CHECK(e.resources.registers > 0);
    CHECK(e.resources.static_smem_bytes >= static_cast<std::size_t>(e.config.at("TILE") * (e.config.at("TILE") + e.config.at("PAD")) * 4));
    CHECK(e.occupancy.warps_per_sm > 0);
    CHECK_FALSE(e.occupancy.limiters.empty());
  }
  CHECK(r.ranking().empty());
  CHECK(r.best() == nullptr);
  CHECK(r.strategy == "grid");

  TuneOptions bayes = no_cache();
  bayes.strategy = "bayes";
  bayes.budget = 4;
  const TuningResult b = tune_modeled(d, {}, catalogue_target("h100"), bayes);
  CHECK(b.evaluations.size() == 4);
  CHECK(b.strategy.find("bayes needs predicted times") != std::string::npos);
}

TEST_CASE("a configuration that cannot launch is a failed candidate; mismatched arguments stop the run") {
  const KernelDescription d = KernelBuilder("shrinking")
                                  .source("k.cu", "template <int B> __global__ void k(float* y, int n) {"
                                                  " int i = blockIdx.x * B + threadIdx.x; if (i < n) y[i] = 1.0f; }")
                                  .kernel("k<{B}>")
                                  .size("n", 1000, "elements")
                                  .parameter(search::Axis::ordinal("B", {64, 128, 2048}))
                                  .block("B")
                                  .grid("ceil_div(n, B) - 8")
                                  .buffer("y", ElementType::f32, "n", BufferRole::out)
                                  .scalar("n", ElementType::i32, "n")
                                  .build();
  const TuningResult r = tune_modeled(d, {}, catalogue_target("h100"), no_cache());
  REQUIRE(r.evaluations.size() == 3);
  CHECK(r.evaluations[0].ok()); // 16 - 8 blocks
  CHECK(r.evaluations[1].status == Status::launch_failed);
  CHECK(r.evaluations[1].reason.find("launch.grid[0] = (ceil_div(n, B) - 8) is 0: a launch needs at least 1") !=
        std::string::npos);
  CHECK(r.evaluations[2].status == Status::launch_failed); // a negative grid, whatever the block

  KernelDescription fewer = d;
  fewer.arguments.pop_back();
  CHECK_THROWS_WITH_AS(tune_modeled(fewer, {}, catalogue_target("h100"), no_cache()),
                       doctest::Contains("describes 1 arguments (y) but the kernel takes 2: void k<64>(float*, int)"),
                       DescriptionError);
}

TEST_CASE("a block over 1024 x 1024 x 64 exceeds the device's limits; a grid over 65535 in y cannot launch; none is 0 us") {
  const auto kernel = [](const char* block_z, const char* grid_y) {
    return KernelBuilder("shaped")
        .source("k.cu", "template <int B> __global__ void k(float* y, int n) {"
                        " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f; }")
        .kernel("k<{B}>")
        .size("n", 1 << 20, "elements")
        .parameter(search::Axis::ordinal("B", {16, 64, 128}))
        .block("1", "1", block_z)
        .grid("ceil_div(n, B)", grid_y)
        .buffer("y", ElementType::f32, "n", BufferRole::out)
        .scalar("n", ElementType::i32, "n")
        .model(nlohmann::ordered_json::parse(R"({"locals": {"i": "blockIdx.x * blockDim.x + threadIdx.x"},
            "global": [{"name": "store y", "buffer": "y", "access": "store", "index": "i", "if": "i < n"}]})"))
        .build();
  };
  for (const bool whole_grid : {true, false}) { // the bounded grid and the search loop
    CAPTURE(whole_grid);
    TuneOptions o = no_cache();
    if (!whole_grid) o.budget = 3;
    const TuningResult r = tune_modeled(kernel("B", "1"), {}, catalogue_target("h100"), o);
    REQUIRE(r.evaluations.size() == 3);
    for (const Evaluation& e : r.evaluations) {
      CAPTURE(r.space.format(e.config));
      if (e.config.at("B") <= 64) {
        CHECK(e.ok());
        REQUIRE(e.timing);
        CHECK(e.timing->median_s > 0);
      } else {
        CHECK(e.status == Status::exceeds_device_limits);
        CHECK(e.reason == "launch.block[2] is 128 threads: a block has at most 64 in z");
      }
    }
    const TuningResult tall = tune_modeled(kernel("1", "B * 1024"), {}, catalogue_target("h100"), o);
    REQUIRE(tall.evaluations.size() == 3);
    for (const Evaluation& e : tall.evaluations) {
      CAPTURE(tall.space.format(e.config));
      if (e.config.at("B") == 16) {
        CHECK(e.ok()); // 16384 blocks in y
      } else {
        CHECK(e.status == Status::launch_failed);
        CHECK(e.reason.find("more than a launch can have (at most 65535 blocks in y)") != std::string::npos);
      }
    }
  }
}

TEST_CASE("a block over the kernel's own __launch_bounds__ exceeds its limits in a modeled run, as on a GPU") {
  const KernelDescription d = KernelBuilder("bounded")
                                  .source("k.cu", "__global__ void __launch_bounds__(128) k(float* y, int n) {"
                                                  " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f; }")
                                  .kernel("k")
                                  .size("n", 1 << 20, "elements")
                                  .parameter(search::Axis::ordinal("B", {64, 128, 256}))
                                  .block("B")
                                  .grid("ceil_div(n, B)")
                                  .buffer("y", ElementType::f32, "n", BufferRole::out)
                                  .scalar("n", ElementType::i32, "n")
                                  .build();
  const TuningResult r = tune_modeled(d, {}, catalogue_target("h200"), no_cache());
  REQUIRE(r.evaluations.size() == 3);
  for (const Evaluation& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CHECK(e.resources.max_threads_per_block == 128);
    if (e.config.at("B") <= 128) {
      CHECK(e.ok());
    } else {
      CHECK(e.status == Status::exceeds_device_limits);
      CHECK(e.reason.find("blocks of 256 threads, but the compiled kernel allows at most 128 (its __launch_bounds__") == 0);
    }
  }
}

TEST_CASE("a cooperative grid larger than the GPU holds at once exceeds its limits, modeled as on a GPU") {
  const KernelDescription d = load_description(kAssets / "grid_sum.json");
  CHECK(d.launch({{"BLOCK", 256}, {"GRID", 132}}, d.complete({}), catalogue_target("h100")).cooperative);
  const TuningResult r = tune_modeled(d, {}, catalogue_target("h100"), no_cache());
  REQUIRE(r.evaluations.size() == 9);
  for (const Evaluation& e : r.evaluations) {
    CAPTURE(r.space.format(e.config));
    CAPTURE(e.reason);
    // 132 SMs: 1024 threads fit 2 blocks an SM (264), 256 fit 8 (1056), 128 fit 16 (2112).
    const std::int64_t block = e.config.at("BLOCK"), grid = e.config.at("GRID");
    const std::int64_t resident = 132 * (2048 / block > 16 ? 16 : 2048 / block);
    if (grid <= resident) {
      CHECK(e.ok());
    } else {
      CHECK(e.status == Status::exceeds_device_limits);
      CHECK(e.reason.find("a cooperative launch of " + std::to_string(grid) + " blocks, but only " +
                          std::to_string(resident) + " fit on the GPU at once") == 0);
    }
  }
}

TEST_CASE("a prediction for a cooperative grid the GPU cannot hold at once is refused, not predicted") {
  // What the launcher's size lookup and the model prior see: a grid.sync()
  // kernel's configuration is no candidate where its grid outgrows the GPU.
  const KernelDescription d = load_description(kAssets / "grid_sum.json");
  KernelResources r;
  r.registers = 23;
  const Evaluation e = predict_with_resources(d, d.complete({}), catalogue_target("h100"),
                                              {{"BLOCK", 1024}, {"GRID", 2112}}, r, 4000012);
  CHECK(e.status == Status::exceeds_device_limits);
  CHECK(e.reason.find("a cooperative launch of 2112 blocks, but only 264 fit") == 0);
}
