#include <memtune/model/occupancy.hpp>
#include <memtune/model/target_catalog.hpp>

#include <doctest/doctest.h>

#include <stdexcept>

#include <algorithm>

using namespace memtune;
using namespace memtune::model;

namespace {

const TargetCatalog& catalog() {
  static const TargetCatalog c = TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return c;
}

bool limited_by(const Occupancy& o, Limiter l) {
  return std::find(o.limiters.begin(), o.limiters.end(), l) != o.limiters.end();
}

constexpr std::size_t KiB = 1024;

} // namespace

// Expected values are derived by hand as the CUDA occupancy calculator does:
// registers are allocated per warp in units of 256, split over 4 sub-partitions
// (65536 / 4 = 16384 registers each); shared memory per block is rounded up to
// 256 B (cc < 8) or 128 B (cc >= 8) after adding the driver's 1 KiB (cc >= 8).

TEST_CASE("H100: registers bound occupancy at 64 registers, not at 32") {
  const Target& h100 = catalog().find("h100");
  // 32 regs: 1024 per warp, 16 warps per sub-partition = 64 warps = 8 blocks of 8 warps.
  const Occupancy a = compute_occupancy(h100, {256, 32, 0, 0});
  CHECK(a.blocks_per_sm == 8);
  CHECK(a.warps_per_sm == 64);
  CHECK(a.fraction == doctest::Approx(1.0));
  CHECK(a.limit_registers == 8);
  CHECK(a.limit_threads_warps == 8);
  CHECK(limited_by(a, Limiter::threads_warps));
  CHECK(limited_by(a, Limiter::registers));
  CHECK(a.smem_per_block == 1 * KiB); // only the driver's reserve
  // 64 regs: 2048 per warp, 8 warps per sub-partition = 32 warps = 4 blocks.
  const Occupancy b = compute_occupancy(h100, {256, 64, 0, 0});
  CHECK(b.blocks_per_sm == 4);
  CHECK(b.warps_per_sm == 32);
  CHECK(b.limiters == std::vector<Limiter>{Limiter::registers});
  CHECK(b.regs_per_block == 16384);
  CHECK(b.describe() == "32 warps/SM of 64 (50%), 4 blocks/SM, limited by registers (4 blocks × 16384 registers of 65536)");
}

TEST_CASE("H100: dynamic shared memory above 48 KiB uses the opt-in limit and the 1 KiB reserve") {
  const Target& h100 = catalog().find("h100");
  // 100 KiB + 1 KiB reserve = 101 KiB per block; 228 / 101 = 2 blocks.
  const Occupancy o = compute_occupancy(h100, {128, 32, 0, 100 * KiB});
  CHECK(o.blocks_per_sm == 2);
  CHECK(o.smem_per_block == 101 * KiB);
  CHECK(o.limiters == std::vector<Limiter>{Limiter::shared_memory});
  // The largest block allowed: 227 KiB + 1 KiB reserve fills the 228 KiB carve-out.
  CHECK(compute_occupancy(h100, {128, 32, 0, 227 * KiB}).blocks_per_sm == 1);
  const Occupancy too_big = compute_occupancy(h100, {128, 32, 0, 228 * KiB});
  CHECK(too_big.blocks_per_sm == 0);
  CHECK(too_big.cannot_launch.find("shared memory") != std::string::npos);
}

TEST_CASE("K20 (cc 3.5): shared-memory-bound blocks, as in the occupancy spreadsheet") {
  const Target& k20 = catalog().find("k20");
  const Occupancy full = compute_occupancy(k20, {128, 32, 48 * KiB, 0});
  CHECK(full.blocks_per_sm == 1);
  CHECK(full.warps_per_sm == 4);
  CHECK(full.limiters == std::vector<Limiter>{Limiter::shared_memory});
  const Occupancy half = compute_occupancy(k20, {256, 32, 24 * KiB, 0});
  CHECK(half.blocks_per_sm == 2);
  CHECK(half.describe() ==
        "16 warps/SM of 64 (25%), 2 blocks/SM, limited by shared memory (2 blocks × 24 KiB of 48 KiB)");
  // Granularity 256 B and no driver reserve before Ampere: 12 KiB + 1 B takes 12.25 KiB -> 3 blocks.
  const Occupancy rounded = compute_occupancy(k20, {128, 16, 12 * KiB + 1, 0});
  CHECK(rounded.smem_per_block == 12 * KiB + 256);
  CHECK(rounded.blocks_per_sm == 3);
  // Small blocks hit Kepler's 16 blocks per SM.
  const Occupancy small = compute_occupancy(k20, {64, 16, 0, 0});
  CHECK(small.blocks_per_sm == 16);
  CHECK(small.warps_per_sm == 32);
  CHECK(small.limiters == std::vector<Limiter>{Limiter::blocks_per_sm});
  CHECK(small.limit_shared_memory == -1); // no shared memory, no limit
}

TEST_CASE("K80's doubled register file doubles register-bound occupancy") {
  // 128 regs x 32 lanes = 4096 per warp; K20: 16384 per sub-partition -> 4 warps
  // each, 16 per SM = 2 blocks of 8 warps; K80: 32768 -> 8 warps each = 4 blocks.
  CHECK(compute_occupancy(catalog().find("k20"), {256, 128, 0, 0}).blocks_per_sm == 2);
  CHECK(compute_occupancy(catalog().find("k80"), {256, 128, 0, 0}).blocks_per_sm == 4);
}

TEST_CASE("Turing's 32 warps per SM make a 1024-thread block fill the SM") {
  const Occupancy o = compute_occupancy(catalog().find("t4"), {1024, 32, 0, 0});
  CHECK(o.blocks_per_sm == 1);
  CHECK(o.fraction == doctest::Approx(1.0));
  CHECK(limited_by(o, Limiter::threads_warps));
}

TEST_CASE("A100: 48 KiB static shared memory plus the reserve gives 3 blocks in 164 KiB") {
  const Occupancy o = compute_occupancy(catalog().find("a100"), {256, 32, 48 * KiB, 0});
  CHECK(o.smem_per_block == 49 * KiB);
  CHECK(o.blocks_per_sm == 3);
}

TEST_CASE("kernels that cannot launch say why") {
  const Target& h100 = catalog().find("h100");
  const Occupancy regs = compute_occupancy(h100, {128, 256, 0, 0});
  CHECK(regs.blocks_per_sm == 0);
  CHECK(regs.fraction == 0.0);
  CHECK(regs.cannot_launch.find("registers") != std::string::npos);
  const Occupancy threads = compute_occupancy(h100, {2048, 16, 0, 0});
  CHECK(threads.blocks_per_sm == 0);
  CHECK(threads.describe().find("2048 threads per block exceed") != std::string::npos);
  CHECK_THROWS_AS((void)compute_occupancy(h100, {0, 16, 0, 0}), std::invalid_argument);
}

TEST_CASE("catalogue blocks-per-SM limits agree with NVIDIA's occupancy calculator") {
  for (const Target& t : catalog().targets()) {
    CAPTURE(t.name);
    const Occupancy o = compute_occupancy(t, {32, 16, 0, 0});
    CHECK(o.limit_blocks_per_sm == t.max_blocks_per_sm);
    CHECK(o.blocks_per_sm == std::min(t.max_blocks_per_sm, t.max_warps_per_sm));
  }
}

TEST_CASE("an architecture cuda_occupancy.h does not know is an error") {
  Target t = catalog().find("k20");
  t.cc_major = 2;
  CHECK_THROWS_AS((void)compute_occupancy(t, {128, 16, 0, 0}), std::invalid_argument);
}

TEST_CASE("every catalogue target launches a block at its opt-in shared-memory limit, and not one byte above") {
  // Cross-checks smem_per_block_optin, reserved_smem_per_block and smem_per_sm
  // against the carve-out tables inside cuda_occupancy.h.
  for (const Target& t : catalog().targets()) {
    CAPTURE(t.name);
    const Occupancy at_limit = compute_occupancy(t, {128, 32, 0, t.smem_per_block_optin});
    CHECK(at_limit.blocks_per_sm >= 1);
    CHECK(at_limit.limit_shared_memory == static_cast<int>(t.smem_per_sm / at_limit.smem_per_block));
    CHECK(compute_occupancy(t, {128, 32, 0, t.smem_per_block_optin + 1}).blocks_per_sm == 0);
  }
}
