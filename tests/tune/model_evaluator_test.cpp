// The model applied to one candidate (model_evaluator.hpp): a grid that
// cannot fill the GPU keeps fewer bytes in flight than a full SM's warps;
// stores are priced per L1 -> L2 write request after write combining; the
// units that overlap memory and compute are those the grid puts on an SM.
#include <memtune/model/target_catalog.hpp>
#include <memtune/tune/model_evaluator.hpp>
#include <memtune/templates/aos_soa.hpp>
#include <memtune/templates/fdtd.hpp>
#include <memtune/templates/filter.hpp>
#include <memtune/templates/matvec.hpp>
#include <memtune/templates/transpose.hpp>

#include <doctest/doctest.h>

using namespace memtune;

namespace {

Evaluation predict(const KernelDescription& kernel, const Problem& problem, const Target& target, const std::string& config,
                   int registers = 32) {
  const search::Space space = kernel.space(problem, target);
  for (const search::Config& c : space.enumerate()) {
    if (space.format(c) != config) continue;
    Evaluation e;
    e.config = c;
    e.resources.registers = registers; // fixed: occupancy must not depend on a compile here
    e.dynamic_smem_bytes = kernel.launch(c, problem, target).dynamic_smem_bytes;
    predict_candidate(e, kernel, problem, target, kernel.bytes_moved(problem));
    return e;
  }
  FAIL("no configuration " << config);
  return {};
}

} // namespace

TEST_CASE("a grid smaller than the GPU is latency-bound by its own threads, not by a full SM's") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto& mv = templates::matvec_description();
  const Problem problem = complete_problem(mv.problem, {{"rows", 8192}, {"cols", 8192}});
  // Column-major, one thread per row and no split: 8192 threads, 64 blocks of
  // 128 for 132 SMs. Measured on the H100: 1648 us; with 16 splits: 102 us.
  const std::string common = "kernel=stream block_size=128 threads_per_row=1 vec=4 unroll=1 prefetch=0 x_stage=ldg pad=0 hint=0";
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

TEST_CASE("overlap units: a grid smaller than the resident capacity overlaps only the warps it puts on an SM") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto& fd = templates::fdtd_description();
  const Problem problem = complete_problem(fd.problem, {{"nx", 512}, {"ny", 512}, {"nz", 256}});
  // The model's fdtd ring pick before this rule: 128 blocks of 8 warps (a
  // 128x16 tile) on 132 SMs. The SM could hold two such blocks (min_warps 16,
  // 2 x 104 KB of ring), but the grid gives each SM one: 8 warps overlap the
  // per-plane compute with the copies, not 16 (ncu on the H100: 94.6 M
  // instructions from 8 warps per SM at 4.69 cycles each; 218 us measured
  // against 189 us for 16 warps of the same tile).
  const std::string ring = "scheme=ring bx=32 by=8 vx=4 zsplit=1 prefetch=3 pad=0 min_warps=16 ky=2 zu=9 copy=bulk zfill=0";
  const Evaluation e = predict(fd, problem, h100, ring);
  REQUIRE(e.model.has_value());
  CHECK(e.occupancy.blocks_per_sm == 2);  // what the SM could hold
  CHECK(e.model->overlap_units_per_sm == 8); // what the grid gives it: one block of 8 warps
  // Its 256-block twin (zfill 2: two chunks a column) fills both slots: 16 warps.
  const Evaluation twice = predict(fd, problem, h100, "scheme=ring bx=32 by=8 vx=4 zsplit=1 prefetch=3 pad=0 min_warps=16 ky=2 zu=9 copy=bulk zfill=2");
  REQUIRE(twice.model.has_value());
  CHECK(twice.model->overlap_units_per_sm == 16);
  // The mat-vec without splits: 64 blocks of 4 warps on 132 SMs; one block on a working SM.
  const auto& mv = templates::matvec_description();
  const Problem mvp = complete_problem(mv.problem, {{"rows", 8192}, {"cols", 8192}});
  const Evaluation few = predict(mv, mvp, h100, "kernel=stream block_size=128 threads_per_row=1 vec=4 unroll=1 prefetch=0 x_stage=ldg pad=0 hint=0 splits=1");
  REQUIRE(few.model.has_value());
  CHECK(few.occupancy.warps_per_sm > 4);
  CHECK(few.model->overlap_units_per_sm == 4);
}

TEST_CASE("overlap units: a barrier block of fewer warps than the SM's schedulers counts as that share of a unit") {
  const Target h200 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h200");
  const auto& tr = templates::transpose_description();
  const Problem problem = complete_problem(tr.problem, {{"rows", 4096}, {"cols", 4096}});
  // The same work a warp: a 32x64 tile, one warp a block, against a 64x64
  // tile, two warps a block. Measured on an H200: 36.6 us and 34.9 us; the
  // 64x64 tile with blocks of 8 warps: 33.9 us. (The static shared tile is
  // not compiled here, so only the SM's 32 blocks limit the occupancy.)
  const Evaluation one = predict(tr, problem, h200, "tile=32 tile_rows=64 block_rows=1 pad=1");
  const Evaluation two = predict(tr, problem, h200, "tile=64 tile_rows=64 block_rows=2 pad=1");
  const Evaluation eight = predict(tr, problem, h200, "tile=64 tile_rows=64 block_rows=8 pad=1");
  REQUIRE(one.model.has_value());
  REQUIRE(two.model.has_value());
  REQUIRE(eight.model.has_value());
  REQUIRE(one.occupancy.blocks_per_sm == 32);
  CHECK(one.model->overlap_units_per_sm == 8); // 32 blocks x 1/4: each covers one of the 4 schedulers
  REQUIRE(two.occupancy.blocks_per_sm == 32);
  CHECK(two.model->overlap_units_per_sm == 16); // 32 x 2/4
  CHECK(eight.model->overlap_units_per_sm == eight.occupancy.blocks_per_sm); // whole blocks
  CHECK(eight.timing->median_s < one.timing->median_s);
}

TEST_CASE("filter stores: 4 scalar stores to the same 4 lines combine, 4 float2 stores over 8 lines do not") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto& f = templates::filter_description();
  const Problem problem = complete_problem(f.problem, {{"n", 1 << 24}});
  // Nsight Compute on the H100 (docs/results.md): 0.72 M and 1.80 M L2
  // write requests; 47.6 us and 82.9 us.
  const Evaluation combined = predict(f, problem, h100, "staging=smem block_size=128 packing=1 items=4 vec=1 align=0 tiles=1 min_warps=0");
  const Evaluation split = predict(f, problem, h100, "staging=smem block_size=256 packing=1 items=8 vec=2 align=1 tiles=1 min_warps=0");
  REQUIRE(combined.model.has_value());
  REQUIRE(split.model.has_value());
  const auto requests = [](const Evaluation& e) {
    const std::string& d = e.model->time.bound(model::Bound::l2).detail;
    return d.substr(d.find("stores: ") + 8);
  };
  CHECK(requests(combined).rfind("0.524 M write requests", 0) == 0); // one per line: 64 MB / 128 B
  CHECK(requests(split).rfind("2.1 M write requests", 0) == 0);      // one per line per instruction
  CHECK(split.model->time.binding == model::Bound::l2);
  CHECK(split.timing->median_s > 1.4 * combined.timing->median_s);
}

TEST_CASE("aos stores: the fields of one struct combine because the kernel stores them one after another") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto& a = templates::aos_soa_description();
  const Problem problem = complete_problem(a.problem, {{"n", 1 << 24}, {"op", 1}, {"fields", 3}});
  // Measured on the H100: 95-97 us for aos items 1 and 2, as fast as soa.
  const Evaluation aos = predict(a, problem, h100, "layout=aos block_size=256 items=2");
  REQUIRE(aos.model.has_value());
  const std::string& d = aos.model->time.bound(model::Bound::l2).detail;
  // 16M structs x 12 B = 201 MB of output: about one request per 128-byte line.
  CHECK(d.find("1.57 M write requests") != std::string::npos);
  CHECK(aos.model->time.binding != model::Bound::l2);
}

TEST_CASE("a vector every block reads (the mat-vec's x) crosses L2 once per SM while L1 holds it") {
  const Target h100 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("h100-sxm");
  const auto& mv = templates::matvec_description();
  const Problem problem = complete_problem(mv.problem, {{"rows", 8192}, {"cols", 8192}, {"layout", 1}});
  // Row-major, a block of 4 warps on each row: 8192 blocks, each reading all
  // of x (32 KiB) beside its row of A (32 KiB). The warps' own L1 shares would
  // fetch x from L2 for every block (268 MB, as much as A); the SM's L1 keeps
  // it, so L2 moves A plus x once per SM. (The H200 ran this configuration in
  // 62.1 us, faster than the 78.5 us its L2 traffic took with x per block.)
  // 94 registers (NVRTC 13, sm_90): 20 warps per SM, whose 16 float4 loads in
  // flight a thread leave L1 room for x.
  const std::string config = "kernel=stream block_size=128 threads_per_row=128 vec=4 unroll=8 prefetch=0 x_stage=ldg "
                             "pad=0 hint=0 splits=1";
  const Evaluation e = predict(mv, problem, h100, config, 94);
  REQUIRE(e.model.has_value());
  const double a_bytes = 8192.0 * 8192 * 4;
  CHECK(e.model->l2_bytes < 1.1 * a_bytes);
  CHECK(e.model->l2_bytes > a_bytes);
  // Kepler's 48 KiB read-only cache cannot hold x beside the loads in flight: x per block.
  const Target k20 = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR).find("k20");
  const Evaluation kepler = predict(mv, problem, k20, config, 94);
  REQUIRE(kepler.model.has_value());
  CHECK(kepler.model->l2_bytes > 1.9 * a_bytes);
  // Nor can the H100's L1 at 64 warps, each with 16 float4 loads in flight (512 KiB).
  const Evaluation full = predict(mv, problem, h100, config, 32);
  REQUIRE(full.model.has_value());
  CHECK(full.model->l2_bytes > 1.9 * a_bytes);
}
