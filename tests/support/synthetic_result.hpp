#pragma once
// A small measured TuningResult built by hand (no GPU, no compiler): three
// configurations of two axes, two ok and one compile failure, with a copy
// ceiling, for printer and report tests.
#include <memtune/measure/copy_ceiling.hpp>
#include <memtune/output/tuning_result.hpp>

namespace memtune::testing {

inline Evaluation synthetic_evaluation(const search::Config& c, double time_s, double ceiling_gbps,
                                       std::uint64_t bytes) {
  Evaluation e;
  e.config = c;
  e.resources.registers = 32;
  e.resources.static_smem_bytes = 1024;
  e.block_threads = static_cast<int>(c.at("block_size"));
  e.occupancy.blocks_per_sm = 8;
  e.occupancy.warps_per_block = e.block_threads / 32;
  e.occupancy.warps_per_sm = 8 * e.block_threads / 32;
  e.occupancy.max_warps_per_sm = 64;
  e.occupancy.fraction = e.occupancy.warps_per_sm / 64.0;
  Timing t;
  t.median_s = t.min_s = t.max_s = time_s;
  t.spread = 0.01;
  t.samples = 20;
  e.timing = t;
  e.gbps = static_cast<double>(bytes) / time_s / 1e9;
  e.fraction_of_ceiling = e.gbps / ceiling_gbps;
  e.fraction_of_peak = e.gbps / 3352.0;
  return e;
}

inline TuningResult synthetic_result() {
  TuningResult r;
  r.template_name = "filter";
  r.problem = {{"n", 1 << 20}, {"taps", 21}};
  r.device = {"Test GPU", 9, 0, 132};
  r.target_name = "local";
  r.measured = true;
  r.compiled_for_cc = 90;
  r.peak_dram_gbs = 3352.0;
  r.strategy = "grid";
  r.space.add(search::Axis::ordinal("block_size", {128, 256}));
  r.space.add(search::Axis::categorical("layout", {"aos", "soa"}));
  r.bytes_moved = 8u << 20;
  r.wall_seconds = 1.5;
  CopyCeiling ceiling;
  ceiling.gbps = 2800.0;
  ceiling.bytes = 100u << 20;
  ceiling.timing.median_s = 75e-6;
  ceiling.timing.samples = 10;
  ceiling.l2_flush = "clean";
  r.ceiling = ceiling;
  // 8 MiB moved: smaller than the ceiling's copy, so a copy of its own size too.
  CopyCeiling same = ceiling;
  same.gbps = 2100.0;
  same.bytes = 4u << 20;
  same.timing.median_s = 4e-6;
  r.same_size_copy = same;
  r.evaluations.push_back(synthetic_evaluation({{"block_size", 128}, {"layout", 0}}, 4.0e-6, ceiling.gbps, r.bytes_moved));
  r.evaluations.push_back(synthetic_evaluation({{"block_size", 256}, {"layout", 1}}, 3.2e-6, ceiling.gbps, r.bytes_moved));
  add_copy_fractions(r);
  Evaluation failed;
  failed.config = {{"block_size", 256}, {"layout", 0}};
  failed.status = Status::compile_failed;
  failed.reason = "error: too many resources, with a comma";
  r.evaluations.push_back(failed);
  r.isolation = "worker process (memtune-worker)";
  r.worker_restarts = 1;
  r.journal = "journal run.journal";
  SetupTimes times;
  times.workers = {{0, 0.45, 0.2, 0.31, 0.0}};
  times.ceiling_s = 0.22;
  times.same_size_copy_s = 0.04;
  times.first_candidate_s = 1.25;
  r.setup_times = times;
  return r;
}

} // namespace memtune::testing
