#include <memtune/model/target_catalog.hpp>
#include <memtune/model/time_model.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;
using namespace memtune::model;

namespace {

const TargetCatalog& catalog() {
  static const TargetCatalog c = TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}

// A streaming copy of 16M floats: 64 MiB in, 64 MiB out.
KernelFacts copy(int warps_per_sm, double loads_in_flight, double bytes_per_load) {
  KernelFacts f;
  f.dram_bytes = 2.0 * 64 * 1024 * 1024;
  f.l2_bytes = f.dram_bytes;
  f.warp_instructions = 16.0 * 1024 * 1024 / 32 * 8 / (bytes_per_load / 4); // ~8 per element-load
  f.warps_per_sm = warps_per_sm;
  f.loads_in_flight_per_thread = loads_in_flight;
  f.bytes_per_load = bytes_per_load;
  return f;
}

} // namespace

TEST_CASE("K20 at full occupancy streams at the bandwidth ceiling") {
  const Target& k20 = catalog().find("k20");
  const TimePrediction p = predict_time(k20, copy(64, 1, 4));
  // 64 warps x 32 x 4 B = 8 KiB per SM; x 13 SMs / 450 ns = 237 GB/s > 0.85 x 208.
  CHECK(p.bytes_in_flight_per_sm == doctest::Approx(8192));
  CHECK(p.latency_bound_gbs == doctest::Approx(8192.0 * 13 / 450));
  CHECK_FALSE(p.latency_limited());
  CHECK(p.achievable_dram_gbs == doctest::Approx(0.85 * 208));
  CHECK(p.binding == Bound::dram);
  CHECK(p.seconds == doctest::Approx(2.0 * 64 * 1024 * 1024 / (0.85 * 208e9)));
  CHECK(p.describe().find("DRAM-bound") != std::string::npos);
}

TEST_CASE("K20 at quarter occupancy is latency-bound until loads overlap") {
  const Target& k20 = catalog().find("k20");
  const TimePrediction low = predict_time(k20, copy(16, 1, 4));
  CHECK(low.latency_limited());
  CHECK(low.achievable_dram_gbs == doctest::Approx(2048.0 * 13 / 450));
  CHECK(low.bound(Bound::dram).detail.find("latency-limited") != std::string::npos);
  // Four independent loads per thread restore the bytes in flight.
  const TimePrediction ilp = predict_time(k20, copy(16, 4, 4));
  CHECK_FALSE(ilp.latency_limited());
  CHECK(ilp.seconds < low.seconds);
}

TEST_CASE("H100 needs wide loads: one float per thread cannot cover its latency") {
  const Target& h100 = catalog().find("h100");
  const TimePrediction scalar = predict_time(h100, copy(64, 1, 4));
  CHECK(scalar.latency_limited());
  const TimePrediction vec = predict_time(h100, copy(64, 1, 16));
  CHECK_FALSE(vec.latency_limited());
  CHECK(vec.achievable_dram_gbs == doctest::Approx(0.85 * h100.dram_bandwidth_gbs));
}

TEST_CASE("shared-memory and issue bounds bind when they are the largest") {
  const Target& k20 = catalog().find("k20");
  KernelFacts f = copy(64, 1, 4);
  f.smem_wavefronts = 1e8; // 1e8 / (13 x 706 MHz) = 10.9 ms
  const TimePrediction smem = predict_time(k20, f);
  CHECK(smem.binding == Bound::shared_memory);
  CHECK(smem.seconds == doctest::Approx(1e8 / (13 * 706e6)));
  f.warp_instructions = 1e9; // 1e9 / (13 x 4 x 706 MHz) = 27.2 ms
  const TimePrediction issue = predict_time(k20, f);
  CHECK(issue.binding == Bound::issue);
  CHECK(issue.seconds == doctest::Approx(1e9 / (13 * 4 * 706e6)));
}

TEST_CASE("overlap: phases serial within a unit are hidden only by the other resident units") {
  const Target& k20 = catalog().find("k20");
  KernelFacts f = copy(64, 1, 4);
  f.smem_wavefronts = 2e6; // 2e6 / (13 x 706 MHz) = 0.218 ms, below the DRAM time
  const double dram = predict_time(k20, f).seconds;
  const double smem = 2e6 / (13 * 706e6);
  f.overlap_units_per_sm = 1; // one block per SM: load, barrier, compute add up
  CHECK(predict_time(k20, f).seconds == doctest::Approx(dram + smem));
  f.overlap_units_per_sm = 16;
  const TimePrediction p = predict_time(k20, f);
  CHECK(p.seconds == doctest::Approx(dram + smem / 16));
  CHECK(p.exposed_seconds == doctest::Approx(smem / 16));
  CHECK(p.binding == Bound::dram);
}

TEST_CASE("the L2 bound is reported as not modelled without a figure, and used with one") {
  Target t = catalog().find("v100");
  KernelFacts f = copy(64, 2, 16);
  f.l2_bytes = 20 * f.dram_bytes; // heavy re-reads that hit L2
  const TimePrediction none = predict_time(t, f);
  CHECK_FALSE(none.bound(Bound::l2).modelled);
  CHECK(none.binding != Bound::l2);
  t.l2_bandwidth_gbs = 2000;
  const TimePrediction with = predict_time(t, f);
  CHECK(with.bound(Bound::l2).modelled);
  CHECK(with.binding == Bound::l2);
  CHECK(with.seconds == doctest::Approx(f.l2_bytes / 2000e9));
}

TEST_CASE("a measured L2 read bandwidth stands in for a missing L2 figure") {
  Target t = catalog().find("v100");
  KernelFacts f = copy(64, 2, 16);
  f.l2_bytes = 20 * f.dram_bytes;
  t.measured = Target::Measured{};
  t.measured->l2_read_gbs = 2500;
  const TimePrediction p = predict_time(t, f);
  CHECK(p.bound(Bound::l2).modelled);
  CHECK(p.bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / 2500e9));
  CHECK(p.bound(Bound::l2).detail.find("measured") != std::string::npos);
  t.l2_bandwidth_gbs = 4000; // a figure in the target file wins over the probe's
  CHECK(predict_time(t, f).bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / 4000e9));
}

TEST_CASE("stores count in the L2 bound per write request, not per sector") {
  Target t = catalog().find("v100");
  t.l2_bandwidth_gbs = 2000;
  KernelFacts f = copy(64, 2, 16);
  f.l2_bytes = 20 * f.dram_bytes;
  f.l2_store_bytes = f.dram_bytes / 2;
  const double loads = f.l2_bytes - f.l2_store_bytes;
  CHECK(predict_time(t, f).bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / 2000e9)); // no requests: sectors
  // Partial writes: one request per line per instruction, each 2.1 line reads.
  f.l2_write_requests = f.l2_store_bytes / 128 * 4;
  const TimePrediction p = predict_time(t, f);
  CHECK(TimeModelParams{}.l2_write_request_reads == doctest::Approx(2.1));
  CHECK(p.bound(Bound::l2).seconds == doctest::Approx((loads + f.l2_write_requests * 128 * 2.1) / 2000e9));
  CHECK(p.bound(Bound::l2).detail.find("write requests") != std::string::npos);
  TimeModelParams cheaper;
  cheaper.l2_write_request_reads = 1.0;
  CHECK(predict_time(t, f, cheaper).bound(Bound::l2).seconds ==
        doctest::Approx((loads + f.l2_write_requests * 128) / 2000e9));
  cheaper.l2_write_request_reads = 0;
  CHECK_THROWS_AS((void)predict_time(t, f, cheaper), std::invalid_argument);
  f.l2_store_bytes = 2 * f.l2_bytes; // more stores than L2 traffic
  CHECK_THROWS_AS((void)predict_time(t, f), std::invalid_argument);
}

TEST_CASE("the block-launch bound: blocks times the time per block, measured or assumed per SM") {
  Target h100 = catalog().find("h100-sxm");
  KernelFacts f = copy(64, 1, 4);
  f.blocks = 524288; // 32-thread blocks, one float each: 16M floats
  f.blocks_per_sm = 32;
  const TimeModelParams params;
  const TimePrediction assumed = predict_time(h100, f, params);
  const double per_block = params.block_launch_ns_per_sm / h100.sm_count * 1e-9;
  CHECK(assumed.bound(Bound::block_launch).seconds == doctest::Approx(f.blocks * per_block));
  CHECK(assumed.binding == Bound::block_launch);
  CHECK(assumed.bound(Bound::block_launch).detail.find("assumed") != std::string::npos);
  h100.measured = Target::Measured{};
  h100.measured->block_launch_ns = 1.0;
  const TimePrediction measured = predict_time(h100, f, params);
  CHECK(measured.bound(Bound::block_launch).seconds == doctest::Approx(f.blocks * 1e-9));
  CHECK(measured.bound(Bound::block_launch).detail.find("measured") != std::string::npos);
  f.blocks = 1024; // few blocks: the bound is far below the DRAM time
  CHECK(predict_time(h100, f, params).binding == Bound::dram);
}

TEST_CASE("the DRAM efficiency parameter scales the ceiling") {
  const Target& a100 = catalog().find("a100");
  TimeModelParams p;
  p.dram_efficiency = 0.5;
  const TimePrediction r = predict_time(a100, copy(64, 4, 16), p);
  CHECK(r.achievable_dram_gbs == doctest::Approx(0.5 * 1555));
}

TEST_CASE("the time model rejects impossible input") {
  const Target& k20 = catalog().find("k20");
  CHECK_THROWS_AS((void)predict_time(k20, copy(0, 1, 4)), std::invalid_argument);
  KernelFacts neg = copy(64, 1, 4);
  neg.dram_bytes = -1;
  CHECK_THROWS_AS((void)predict_time(k20, neg), std::invalid_argument);
  Target broken = k20;
  broken.memory_latency_ns = 0;
  CHECK_THROWS_AS((void)predict_time(broken, copy(64, 1, 4)), std::invalid_argument);
  TimeModelParams p;
  p.dram_efficiency = 1.5;
  CHECK_THROWS_AS((void)predict_time(k20, copy(64, 1, 4), p), std::invalid_argument);
}
