// TuningResult's ranking, and the rationale's words for a tie the model
// cannot separate by time.
#include <memtune/output/tuning_recording.hpp>
#include <memtune/output/tuning_result.hpp>
#include <memtune/search/recording.hpp>

#include "../support/synthetic_result.hpp"

#include <doctest/doctest.h>

using namespace memtune;

namespace {

// A modeled evaluation: DRAM-bound at dram_s, its next bound at runner_up_s.
Evaluation modeled(int block_size, double dram_s, model::Bound runner, double runner_up_s) {
  Evaluation e = testing::synthetic_evaluation({{"block_size", block_size}, {"layout", 0}}, dram_s, 2800.0, 8u << 20);
  ModelBreakdown m;
  m.time.seconds = dram_s;
  m.time.binding = model::Bound::dram;
  for (model::Bound b : {model::Bound::dram, model::Bound::l2, model::Bound::shared_memory, model::Bound::issue,
                         model::Bound::block_pipeline, model::Bound::block_launch})
    m.time.bounds.push_back({b, b == model::Bound::dram ? dram_s : b == runner ? runner_up_s : 1e-9, true, {}});
  e.model = m;
  return e;
}

TuningResult modeled_result() {
  TuningResult r = testing::synthetic_result();
  r.measured = false;
  r.ceiling.reset();
  r.same_size_copy.reset();
  r.evaluations.clear();
  return r;
}

} // namespace

TEST_CASE("runner_up: the largest modelled bound after the binding one") {
  const Evaluation e = modeled(128, 10e-6, model::Bound::block_pipeline, 8e-6);
  const model::BoundTime* r = e.model->time.runner_up();
  REQUIRE(r != nullptr);
  CHECK(r->bound == model::Bound::block_pipeline);
  CHECK(r->seconds == doctest::Approx(8e-6));
  model::TimePrediction alone;
  alone.bounds = {{model::Bound::dram, 1e-6, true, {}}, {model::Bound::l2, 5e-6, false, {}}};
  CHECK(alone.runner_up() == nullptr); // an unmodelled bound is no runner-up
}

TEST_CASE("ranking: time first; among equal times, the lowest runner-up bound first") {
  TuningResult r = modeled_result();
  r.evaluations.push_back(modeled(128, 10e-6, model::Bound::block_pipeline, 9.5e-6)); // tied, little headroom
  r.evaluations.push_back(modeled(256, 12e-6, model::Bound::l2, 1e-6));               // slower
  r.evaluations.push_back(modeled(64, 10e-6, model::Bound::l2, 7.0e-6));              // tied, most headroom
  r.evaluations.push_back(modeled(32, 10e-6, model::Bound::issue, 8.0e-6));           // tied
  const auto order = r.ranking();
  REQUIRE(order.size() == 4);
  CHECK(order == std::vector<std::size_t>{2, 3, 0, 1});
  CHECK(r.best() == &r.evaluations[2]);
}

TEST_CASE("ranking: equal times without model facts keep their order") {
  TuningResult r = testing::synthetic_result();
  r.evaluations[1].timing->median_s = r.evaluations[0].timing->median_s;
  CHECK(r.ranking() == std::vector<std::size_t>{0, 1});
}

TEST_CASE("rationale: a modeled tie says which next bound broke it") {
  TuningResult r = modeled_result();
  r.evaluations.push_back(modeled(128, 10e-6, model::Bound::block_pipeline, 9.5e-6));
  r.evaluations.push_back(modeled(64, 10e-6, model::Bound::l2, 7.0e-6));
  const std::string s = rationale(r);
  CHECK(s.find("ties with it by the model (DRAM-bound)") != std::string::npos);
  CHECK(s.find("L2 7 us against block pipeline 9.5 us") != std::string::npos);
  // Not a tie: the usual comparison, no tie words.
  r.evaluations[0].timing->median_s = 11e-6;
  r.evaluations[0].model->time.seconds = 11e-6;
  CHECK(rationale(r).find("ties with it") == std::string::npos);
}

TEST_CASE("rationale: a modeled tie on the next bound too says the model does not separate them") {
  TuningResult r = modeled_result();
  r.evaluations.push_back(modeled(128, 10e-6, model::Bound::l2, 7.0e-6));
  r.evaluations.push_back(modeled(64, 10e-6, model::Bound::l2, 7.0e-6));
  const std::string s = rationale(r);
  CHECK(s.find("and so does the next bound (L2 7 us for both)") != std::string::npos);
  CHECK(s.find("further below") == std::string::npos); // not "7 us against 7 us"
}

TEST_CASE("rationale: a runner-up whose block pipeline comes close to its memory time says so (the knee)") {
  TuningResult r = modeled_result();
  r.evaluations.push_back(modeled(128, 10e-6, model::Bound::block_pipeline, 4.0e-6));
  r.evaluations.push_back(modeled(64, 10e-6, model::Bound::block_pipeline, 9.5e-6));
  r.evaluations[1].model->time.seconds = 10.9e-6; // the knee's p-norm raises it
  r.evaluations[1].timing->median_s = 10.9e-6;
  r.evaluations[1].occupancy = r.evaluations[0].occupancy; // nothing else tells them apart
  const std::string s = rationale(r);
  INFO(s);
  CHECK(s.find("(block pipeline 9.5 us) take 95% of its memory time (10 us), where the two overlap imperfectly; "
               "here they take 40%.") != std::string::npos);
  // A runner-up far from the knee gets no such words.
  r.evaluations[1].model->time.bounds[static_cast<std::size_t>(model::Bound::block_pipeline)].seconds = 5.0e-6;
  CHECK(rationale(r).find("overlap imperfectly") == std::string::npos);
}

TEST_CASE("to_recording: every evaluation a trial, with its energy, GPU and resources, and read back as written") {
  TuningResult r = testing::synthetic_result();
  REQUIRE(r.evaluations.size() >= 2);
  EnergyMeasurement m;
  m.joules_per_launch = 0.0271;
  m.repeats = 5;
  r.evaluations[0].energy = m;
  r.evaluations[0].device = 1;
  r.evaluations[1].timing.reset(); // compiled and fits, no time: modeled without a model section
  r.evaluations[0].resources = {.registers = 40, .static_smem_bytes = 512, .spill_store_bytes = 8};
  r.evaluations[1].resources = {}; // not compiled: nothing to keep
  const search::Recording rec = to_recording(r);
  REQUIRE(rec.trials.size() == r.evaluations.size());
  REQUIRE(rec.trial_annotations.size() == rec.trials.size());
  CHECK(rec.trials[0].ok());
  CHECK(rec.trial_annotations[0]["joules_per_launch"] == doctest::Approx(0.0271));
  CHECK(rec.trial_annotations[0]["device"] == 1);
  // ptxas' figures, so the model can predict the trial again (a merged run's profile entry).
  CHECK(rec.trial_annotations[0]["resources"] == nlohmann::json{{"registers", 40}, {"static_smem_bytes", 512},
                                                                 {"stack_frame_bytes", 0}, {"spill_store_bytes", 8},
                                                                 {"spill_load_bytes", 0}});
  CHECK_FALSE(rec.trial_annotations[1].contains("resources"));
  if (r.evaluations[1].ok()) {
    CHECK(rec.trials[1].status == "not_modeled");
    CHECK_FALSE(rec.trials[1].ok());
  }
  CHECK(rec.kernel_fingerprint == r.kernel_fingerprint);
  CHECK(rec.annotations["target"] == r.target_name);
  const search::Recording back = search::Recording::from_json(rec.to_json());
  CHECK(back.trial_annotations[0] == rec.trial_annotations[0]);
  CHECK(back.to_json() == rec.to_json());
  CHECK(trials_to_json(r) == rec.to_json()["trials"]);
}

TEST_CASE("rationale: a problem of a few bytes gives its GB/s in three digits, not 0 GB/s") {
  TuningResult r = testing::synthetic_result();
  r.bytes_moved = 60; // three options of five floats
  r.same_size_copy->bytes = 60;
  r.same_size_copy->gbps = 0.0156;
  r.evaluations.resize(1);
  r.evaluations[0] = testing::synthetic_evaluation({{"block_size", 128}, {"layout", 0}}, 3.9e-6, r.ceiling->gbps, 60);
  add_copy_fractions(r);
  const std::string s = rationale(r);
  CAPTURE(s);
  CHECK(s.find("0.0154 GB/s = 0% of the 3352 GB/s peak") != std::string::npos);
  CHECK(s.find("of a copy of the same bytes (0.0156 GB/s)") != std::string::npos);
  CHECK(s.find("(0 GB/s)") == std::string::npos);
}

TEST_CASE("rationale: a grid of fewer blocks than the GPU's slots says how many SMs it leaves idle") {
  TuningResult r = testing::synthetic_result(); // 132 SMs; block_size 256: 8 warps a block, 8 blocks/SM
  const auto rationale_with_grid = [&](std::uint64_t blocks) {
    for (auto& e : r.evaluations) e.grid_blocks = blocks;
    return rationale(r);
  };
  CHECK(rationale_with_grid(64).find("; but the grid has 64 blocks for 132 SMs: 64 SMs hold one block (8 warps), "
                                     "68 are idle") != std::string::npos);
  CHECK(rationale_with_grid(264).find("; but the grid has 264 blocks for 132 SMs: at most 2 blocks (16 warps) an SM") !=
        std::string::npos);
  CHECK(rationale_with_grid(132).find("; but the grid has 132 blocks for 132 SMs: at most 1 block (8 warps) an SM") !=
        std::string::npos);
  CHECK(rationale_with_grid(132 * 8).find("but the grid") == std::string::npos); // every slot filled
  CHECK(rationale_with_grid(0).find("but the grid") == std::string::npos);       // not known
}
