// The filter's predicted ranking on K20 (Kepler, 4- and 8-byte bank modes),
// from its access pattern and the model alone: no GPU, no NVRTC (registers
// are fixed at a plausible 32, so occupancy does not depend on a compile).
#include <memtune/model/target_catalog.hpp>
#include <memtune/model_evaluator.hpp>
#include <memtune/templates/filter.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

double predict_k20(std::int64_t block, std::int64_t packing, std::int64_t items, std::int64_t bank_mode) {
  static const Target k20 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("k20");
  const auto& f = templates::filter();
  const Problem problem{{"n", std::int64_t{1} << 24}, {"taps", 21}};
  Evaluation e;
  e.config = search::Config{{"block_size", block}, {"packing", packing}, {"items", items}, {"vec", 1},
                            {"align", 0},          {"bank_mode", bank_mode}};
  e.resources.registers = 32;
  e.dynamic_smem_bytes = f.launch(e.config, problem).dynamic_smem_bytes;
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
