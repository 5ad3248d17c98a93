#include <memtune/model/target_catalog.hpp>
#include <memtune/model/time_model.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

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
  f.warp_instructions = 1e9; // x 1.5 overhead / (13 x 4 schedulers x 2 dispatch x 706 MHz) = 20.4 ms
  const TimePrediction issue = predict_time(k20, f);
  CHECK(issue.binding == Bound::issue);
  CHECK(issue.seconds == doctest::Approx(1.5e9 / (13 * 4 * 2 * 706e6)));
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
  t.l2_bandwidth_gbs = 0; // a hand-written profile without the figure
  KernelFacts f = copy(64, 2, 16);
  f.l2_bytes = 20 * f.dram_bytes; // heavy re-reads that hit L2
  const TimePrediction none = predict_time(t, f);
  CHECK_FALSE(none.bound(Bound::l2).modelled);
  CHECK(none.binding != Bound::l2);
  t.l2_bandwidth_gbs = 2000 / TimeModelParams{}.l2_efficiency; // theoretical: reaches 2000 GB/s
  const TimePrediction with = predict_time(t, f);
  CHECK(with.bound(Bound::l2).modelled);
  CHECK(with.binding == Bound::l2);
  CHECK(with.seconds == doctest::Approx(f.l2_bytes / 2000e9));
}

TEST_CASE("a measured L2 read bandwidth is used as it is, before any theoretical figure") {
  Target t = catalog().find("v100");
  t.l2_bandwidth_gbs = 0;
  KernelFacts f = copy(64, 2, 16);
  f.l2_bytes = 20 * f.dram_bytes;
  t.measured = Target::Measured{};
  t.measured->l2_read_gbs = 2500;
  const TimePrediction p = predict_time(t, f);
  CHECK(p.bound(Bound::l2).modelled);
  CHECK(p.bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / 2500e9));
  CHECK(p.bound(Bound::l2).detail.find("measured") != std::string::npos);
  t.l2_bandwidth_gbs = 4000; // a theoretical figure does not override what was measured on this GPU
  CHECK(predict_time(t, f).bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / 2500e9));
}

TEST_CASE("stores count in the L2 bound per write request, not per sector") {
  Target t = catalog().find("v100");
  t.l2_bandwidth_gbs = 2000 / TimeModelParams{}.l2_efficiency;
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

TEST_CASE("the L2 bound uses a theoretical L2 bandwidth scaled by the H100's measured efficiency, or a measured one") {
  Target h100 = catalog().find("h100-sxm");
  REQUIRE_FALSE(h100.measured);
  KernelFacts f = copy(64, 4, 16);
  f.l2_bytes = 4 * f.dram_bytes; // partial sectors: four times the traffic reaches L2
  const TimePrediction p = predict_time(h100, f);
  REQUIRE(p.bound(Bound::l2).modelled);
  const double l2_gbs = h100.l2_bandwidth_gbs * TimeModelParams{}.l2_efficiency;
  CHECK(l2_gbs == doctest::Approx(6865).epsilon(0.01)); // the probe's figure on the H100 SXM5
  CHECK(p.bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / (l2_gbs * 1e9)));
  CHECK(p.bound(Bound::l2).detail.find("theoretical") != std::string::npos);

  h100.measured = Target::Measured{};
  h100.measured->l2_read_gbs = 5000; // a probe's figure is taken as it is
  CHECK(predict_time(h100, f).bound(Bound::l2).seconds == doctest::Approx(f.l2_bytes / 5000e9));
  // The catalogue's H200 carries the probe's figure on an H200.
  const Target& h200 = catalog().find("h200");
  REQUIRE(h200.measured);
  CHECK(h200.measured->l2_read_gbs == 8232);
  CHECK(predict_time(h200, f).bound(Bound::l2).detail.find("measured L2 read bandwidth") != std::string::npos);
}

TEST_CASE("Kepler's dual issue halves the issue bound; its 192 FP32 lanes cap FP32-heavy code at 6 per clock") {
  const Target& k20 = catalog().find("k20");
  REQUIRE(k20.dispatch_per_scheduler == 2);
  KernelFacts f;
  f.warp_instructions = 1e8;
  TimeModelParams p;
  p.instruction_overhead = 1;
  const double clock = 13 * 706e6;
  CHECK(predict_time(k20, f, p).bound(Bound::issue).seconds == doctest::Approx(1e8 / (clock * 8)));
  f.fp32_instructions = 0.9e8; // 90% FMAs: 6 per SM and clock bind before the 8 dispatch slots
  const TimePrediction fp32 = predict_time(k20, f, p);
  CHECK(fp32.bound(Bound::issue).seconds == doctest::Approx(0.9e8 / (clock * 6)));
  CHECK(fp32.bound(Bound::issue).detail.find("FP32") != std::string::npos);
  const Target& h100 = catalog().find("h100");
  CHECK(predict_time(h100, f, p).bound(Bound::issue).seconds ==
        doctest::Approx(1e8 / (132 * 1980e6 * 4))); // 128 lanes = the 4 schedulers' rate: dispatch binds
}

TEST_CASE("a dependent round trip waits longer in a busy memory system: loaded latency") {
  const Target& h100 = catalog().find("h100");
  KernelFacts f = copy(8, 4, 16);
  f.blocks = 128; // one wave: 128 blocks of 8 warps on 132 SMs
  f.blocks_per_sm = 1;
  f.memory_round_trips_per_block = 128;
  f.instructions_per_warp = 100;
  f.warp_instructions = f.instructions_per_warp * 8 * 128;
  TimeModelParams unloaded;
  unloaded.loaded_latency_gain = 0;
  const double idle = predict_time(h100, f, unloaded).bound(Bound::block_pipeline).seconds;
  const TimePrediction busy = predict_time(h100, f);
  // DRAM is the next bound, so the utilisation is near 1 and the latency nearly doubles.
  CHECK(busy.bound(Bound::block_pipeline).seconds > 1.8 * (idle - 100 * 1.5 / 1980e6));
  CHECK(busy.bound(Bound::block_pipeline).detail.find("loaded latency") != std::string::npos);
}

TEST_CASE("the knee: where the memory time and the block pipeline meet, the time is their p-norm") {
  const Target& h100 = catalog().find("h100");
  KernelFacts f = copy(32, 4, 16);
  f.blocks = 4 * 132 * 8; // eight waves of 4 blocks of 8 warps per SM
  f.blocks_per_sm = 4;
  f.instructions_per_warp = 100;
  TimeModelParams max_only;
  max_only.knee_exponent = 0;
  // Far from the knee (one round trip a block) the p-norm is the max within 0.1 %.
  f.memory_round_trips_per_block = 1;
  const TimePrediction far = predict_time(h100, f);
  CHECK(far.bound(Bound::block_pipeline).seconds < 0.5 * far.bound(Bound::dram).seconds);
  CHECK(far.seconds == doctest::Approx(predict_time(h100, f, max_only).seconds).epsilon(1e-3));
  // Enough dependent round trips that the pipeline reaches the DRAM time.
  const auto short_of_dram = [&] {
    const TimePrediction p = predict_time(h100, f, max_only);
    return p.bound(Bound::block_pipeline).seconds < 0.9 * p.bound(Bound::dram).seconds;
  };
  while (short_of_dram() && f.memory_round_trips_per_block < 1000) f.memory_round_trips_per_block += 1;
  REQUIRE_FALSE(short_of_dram());
  const TimePrediction at = predict_time(h100, f);
  const double memory = std::max(at.bound(Bound::dram).seconds, at.bound(Bound::l2).seconds);
  const double pipeline = at.bound(Bound::block_pipeline).seconds;
  const double launch = at.bound(Bound::block_launch).seconds;
  const double norm = std::pow(std::pow(memory, 8) + std::pow(pipeline, 8) + std::pow(launch, 8), 1.0 / 8);
  CHECK(at.seconds == doctest::Approx(norm));
  CHECK(at.seconds > 1.05 * std::max(memory, pipeline)); // both near the crossing: up to 2^(1/8) = 1.09x
  CHECK(predict_time(h100, f, max_only).seconds == doctest::Approx(std::max(memory, pipeline)));
  TimeModelParams negative;
  negative.knee_exponent = -1;
  CHECK_THROWS_AS((void)predict_time(h100, f, negative), std::invalid_argument);
}

TEST_CASE("the busiest SM sets the SM-side bounds: 133 blocks on 132 SMs take two blocks' time") {
  const Target& h100 = catalog().find("h100-sxm");
  KernelFacts f = copy(64, 4, 16);
  f.smem_wavefronts = 1e9;
  f.blocks_per_sm = 2;
  f.blocks = 132;
  const TimePrediction even = predict_time(h100, f);
  f.blocks = 133; // the same work per launch, one SM holding two blocks
  const TimePrediction uneven = predict_time(h100, f);
  CHECK(uneven.bound(Bound::shared_memory).seconds ==
        doctest::Approx(even.bound(Bound::shared_memory).seconds * 2 * 132 / 133));
  CHECK(uneven.bound(Bound::issue).seconds == doctest::Approx(even.bound(Bound::issue).seconds * 2 * 132 / 133));
  CHECK(uneven.bound(Bound::shared_memory).detail.find("busiest SM's 2 blocks") != std::string::npos);
  CHECK(uneven.bound(Bound::dram).seconds == doctest::Approx(even.bound(Bound::dram).seconds)); // shared by all SMs
  f.blocks = 264; // whole blocks per SM: no factor
  CHECK(predict_time(h100, f).bound(Bound::shared_memory).seconds ==
        doctest::Approx(even.bound(Bound::shared_memory).seconds));
}

TEST_CASE("the copy engine bound: bulk copies one after another on each SM's engine") {
  const Target& h200 = catalog().find("h200");
  KernelFacts f = copy(64, 4, 16);
  f.blocks = 132;
  f.blocks_per_sm = 1;
  CHECK_FALSE(predict_time(h200, f).bound(Bound::copy_engine).modelled);
  f.bulk_copies = 132.0 * 1e5;            // 1e5 a SM
  f.bulk_copy_bytes = 132.0 * 1e5 * 3900; // 3900 B a copy: 100 cycles at 39 B/cycle
  const TimePrediction p = predict_time(h200, f);
  const BoundTime& b = p.bound(Bound::copy_engine);
  REQUIRE(b.modelled);
  // One block per SM feeds the engine: it idles while the block waits, x 2.
  CHECK(b.seconds == doctest::Approx(2 * 1e5 * (12 + 100) / (h200.sm_clock_mhz * 1e6)));
  CHECK(p.binding == Bound::copy_engine);
  f.blocks_held_per_sm = 2; // two blocks take turns: x 1.5
  CHECK(predict_time(h200, f).bound(Bound::copy_engine).seconds == doctest::Approx(b.seconds * 0.75));
  CHECK(std::string(to_string(Bound::copy_engine)) == "copy engine");
  f.bulk_copies = -1;
  CHECK_THROWS_AS(predict_time(h200, f), std::invalid_argument);
}
