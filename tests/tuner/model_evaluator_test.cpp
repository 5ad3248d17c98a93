// The model applied to one candidate (model_evaluator.hpp): a grid that
// cannot fill the GPU keeps fewer bytes in flight than a full SM's warps.
#include <memtune/model/target_catalog.hpp>
#include <memtune/model_evaluator.hpp>
#include <memtune/templates/matvec.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

Evaluation predict(const KernelTemplate& kernel, const Problem& problem, const Target& target, const std::string& config) {
  const search::Space space = kernel.space(problem, target);
  for (const search::Config& c : space.enumerate()) {
    if (space.format(c) != config) continue;
    Evaluation e;
    e.config = c;
    e.resources.registers = 32; // fixed: occupancy must not depend on a compile here
    e.dynamic_smem_bytes = kernel.launch(c, problem).dynamic_smem_bytes;
    predict_candidate(e, kernel, problem, target, kernel.bytes_moved(problem));
    return e;
  }
  FAIL("no configuration " << config);
  return {};
}

} // namespace

TEST_CASE("a grid smaller than the GPU is latency-bound by its own threads, not by a full SM's") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto& mv = templates::matvec();
  const Problem problem = complete_problem(mv.problem_parameters(), {{"rows", 8192}, {"cols", 8192}});
  // Column-major, one thread per row and no split: 8192 threads, 64 blocks of
  // 128 for 132 SMs. Measured on the H100: 1648 us; with 16 splits: 102 us.
  const std::string common = "kernel=stream block_size=128 threads_per_row=1 vec=4 unroll=1 prefetch=0 x_stage=ldg pad=0";
  const Evaluation few = predict(mv, problem, h100, common + " splits=1");
  const Evaluation many = predict(mv, problem, h100, common + " splits=16");
  REQUIRE(few.model.has_value());
  REQUIRE(many.model.has_value());
  CHECK(few.occupancy.warps_per_sm > 8); // the SM could hold more, the grid does not have them
  CHECK(few.model->time.latency_limited());
  // 64 blocks x 4 warps over 132 SMs: under 2 warps per SM in flight on average.
  CHECK(few.model->time.bytes_in_flight_per_sm < 2.0 * 32 * 16);
  CHECK(few.timing->median_s > 5 * many.timing->median_s);
}
