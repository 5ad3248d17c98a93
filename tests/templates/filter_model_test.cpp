// The filter's predicted ranking on K20 (Kepler, 4- and 8-byte bank modes),
// from its access pattern and the model alone: no GPU, no NVRTC (registers
// are fixed at a plausible 32, so occupancy does not depend on a compile).
#include <memtune/model/bank_replay.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

double predict_k20(std::int64_t block, std::int64_t packing, std::int64_t items, std::int64_t bank_mode) {
  static const Target k20 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("k20");
  const auto& f = templates::filter_description();
  const Problem problem{{"n", std::int64_t{1} << 24}, {"taps", 21}};
  Evaluation e;
  e.config = search::Config{{"staging", 0}, {"block_size", block}, {"packing", packing}, {"items", items}, {"vec", 1},
                            {"align", 0},          {"tiles", 1}, {"min_warps", 0}, {"bank_mode", bank_mode}};
  e.resources.registers = 32;
  e.dynamic_smem_bytes = f.launch(e.config, problem, k20).dynamic_smem_bytes;
  predict_candidate(e, f, problem, k20, f.bytes_moved(problem));
  REQUIRE(e.ok());
  return e.timing->median_s;
}

} // namespace

TEST_CASE("K20 filter, the article's kernel (one output per thread and segment): float2 in 8-byte mode wins") {
  for (const std::int64_t block : {128, 256}) {
    CAPTURE(block);
    const double float_4 = predict_k20(block, 1, 1, 4);
    const double float2_4 = predict_k20(block, 2, 1, 4);
    const double float2_8 = predict_k20(block, 2, 1, 8);
    // float2 halves the shared loads per output; in 4-byte mode its window
    // reads straddle 64-word segments (2-way), in 8-byte mode they do not.
    CHECK(float2_8 < float2_4);
    CHECK(float2_4 < float_4);
    // Floats are 4-byte accesses: one wavefront per instruction in either mode.
    CHECK(predict_k20(block, 1, 1, 8) == doctest::Approx(float_4));
  }
}

TEST_CASE("the filter's register window is read with the widest shared load the compiler can prove aligned") {
  // Nsight Compute on the H100 (docs/results.md): with float2 elements
  // and 4 items per thread the window is read with 16-byte loads, and with
  // 8 items of float even in the element-by-element branch (align 0).
  const auto& f = templates::filter_description();
  const Problem problem{{"n", std::int64_t{1} << 20}, {"taps", 17}}; // radius 8
  // A copy: the catalogue is a temporary.
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto window = [&](std::int64_t packing, std::int64_t items, std::int64_t align) {
    const search::Config c{{"staging", 0}, {"block_size", 128}, {"packing", packing}, {"items", items}, {"vec", 1}, {"align", align}};
    std::vector<std::pair<int, std::int64_t>> loads; // width, loads per thread
    for (const auto& s : f.hooks.access_pattern(c, problem, h100).shared)
      if (s.name.rfind("load window", 0) == 0) loads.emplace_back(s.width_bytes, s.iterations);
    return loads;
  };
  using Loads = std::vector<std::pair<int, std::int64_t>>;
  CHECK(window(1, 1, 0) == Loads{{4, 17}});           // odd items: one float at a time
  CHECK(window(2, 1, 0) == Loads{{8, 17}});           // one float2 element at a time
  CHECK(window(2, 4, 1) == Loads{{16, 10}});          // pairs of float2: 20 elements
  CHECK(window(1, 8, 0) == Loads{{16, 6}});           // 24 floats, 16-byte aligned per thread
  CHECK(window(1, 2, 1) == Loads{{8, 9}});            // the aligned branch: 2 + 2 x 8 floats as float2
  CHECK(window(4, 2, 1) == Loads{{16, 18}});          // float4 elements are already 16 bytes
  CHECK(window(1, 4, 1) == Loads{{16, 5}});           // the best H100 configuration's 16-byte reads
}

TEST_CASE("the filter's window skips the aligned chunks' dead elements, as the sm_90 SASS does") {
  // taps 21 (radius 10) with vec 4: halo 12, so the taps use elements 2..25
  // of the aligned span 0..27. Nsight Compute's source view of
  // filter_kernel<256, 1, 4, 4, 1>: LDS.64 [+0x8], LDS.128 [+0x10] .. [+0x50],
  // LDS.64 [+0x60]; ncu counts 2 excessive wavefronts per warp on each LDS.64
  // (16-byte lane stride) and none on the LDS.128s.
  const auto& f = templates::filter_description();
  const Problem problem{{"n", std::int64_t{1} << 20}, {"taps", 21}};
  // A copy: the catalogue is a temporary.
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const search::Config c{{"staging", 0}, {"block_size", 256}, {"packing", 1}, {"items", 4}, {"vec", 4}, {"align", 1}, {"tiles", 1}, {"min_warps", 0}};
  std::vector<std::pair<int, std::int64_t>> loads;
  std::vector<model::SharedInstruction> window;
  for (const auto& s : f.hooks.access_pattern(c, problem, h100).shared)
    if (s.name.rfind("load window", 0) == 0) {
      loads.emplace_back(s.width_bytes, s.iterations);
      window.push_back(s);
    }
  CHECK(loads == std::vector<std::pair<int, std::int64_t>>{{8, 1}, {16, 5}, {8, 1}});
  const model::BankReplay r = model::replay_block(window, 8, model::BankConfig::for_target(h100, 4));
  CHECK(r.total.wavefronts == 8 * (4 + 5 * 4 + 4));
  CHECK(r.total.conflicts() == 8 * (2 + 2)); // per block of 8 warps: ncu's 32768 over 1024 blocks
}
