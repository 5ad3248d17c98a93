// The probes' model predictions (probe/coalescing.hpp, bank_probe.hpp,
// probe/prior.hpp): sectors per warp from the coalescing model, wavefronts
// from the bank simulator, and the priors built on them rank the probes'
// configs the textbook way.
#include <memtune/model/target_catalog.hpp>
#include <memtune/probe/bank_probe.hpp>
#include <memtune/probe/coalescing.hpp>
#include <memtune/probe/prior.hpp>
#include <memtune/probe/report.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune;
using namespace memtune::probe;

namespace {
const Target& h100() {
  static const auto catalog = model::TargetCatalog::load_directory(MEMTUNE_TEST_TARGETS_DIR);
  return catalog.find("h100-sxm");
}
} // namespace

TEST_CASE("the coalescing probe's elements and sectors per warp") {
  CHECK(coalescing_element(Coalescing::offset, 3, 5) == 8);
  CHECK(coalescing_element(Coalescing::stride, 32, 5) == 160);
  CHECK(coalescing_warp_access(Coalescing::offset, 0, 7).sectors == 4);
  CHECK(coalescing_warp_access(Coalescing::offset, 1, 7).sectors == 5);
  CHECK(coalescing_warp_access(Coalescing::offset, 8, 7).sectors == 4); // 32 bytes: still sector-aligned
  CHECK(coalescing_warp_access(Coalescing::stride, 1, 0).sectors == 4);
  CHECK(coalescing_warp_access(Coalescing::stride, 2, 0).sectors == 8);
  CHECK(coalescing_warp_access(Coalescing::stride, 8, 0).sectors == 32);
  CHECK(coalescing_warp_access(Coalescing::stride, 32, 3).sectors == 32);
  // n floats read and written once, coalesced: 8 n bytes at DRAM bandwidth.
  const std::uint64_t n = 1 << 25;
  CHECK(predict_coalescing_time(Coalescing::stride, 1, n, h100()) ==
        doctest::Approx(8.0 * n / (h100().dram_bandwidth_gbs * 1e9)));
}

TEST_CASE("the coalescing model reads whole L2 fetch chunks and writes back sectors") {
  const std::uint64_t n = 1 << 25;
  Target t = h100();
  const auto bytes_per_warp = [&](Coalescing probe, int s) {
    return predict_coalescing_time(probe, s, n, t) * t.dram_bandwidth_gbs * 1e9 / (n / 32.0);
  };
  // Sector granularity (the default): stride 8 and above touch 32 sectors a warp, read and written.
  CHECK(bytes_per_warp(Coalescing::stride, 8) == doctest::Approx(2 * 32 * 32));
  CHECK(bytes_per_warp(Coalescing::stride, 32) == doctest::Approx(2 * 32 * 32));
  // 64-byte fetches: the read grows with the stride up to 16 floats (64 bytes) a lane.
  t.measured = Target::Measured{};
  t.measured->l2_fetch_bytes = 64;
  CHECK(bytes_per_warp(Coalescing::stride, 1) == doctest::Approx(128 + 128)); // 2 chunks read, 4 sectors written
  CHECK(bytes_per_warp(Coalescing::stride, 8) == doctest::Approx(16 * 64 + 32 * 32));
  CHECK(bytes_per_warp(Coalescing::stride, 12) == doctest::Approx(24 * 64 + 32 * 32));
  CHECK(bytes_per_warp(Coalescing::stride, 16) == doctest::Approx(32 * 64 + 32 * 32));
  CHECK(bytes_per_warp(Coalescing::stride, 32) == doctest::Approx(32 * 64 + 32 * 32));
  // A warp's 128 bytes at a 64-byte offset read 2 chunks, at a 32-byte offset 3.
  CHECK(bytes_per_warp(Coalescing::offset, 16) < bytes_per_warp(Coalescing::offset, 8));
}

TEST_CASE("probe priors rank the configs as the access patterns say") {
  const Problem coalescing{{"n", 1 << 25}};
  const auto offset = probe_prior("probe-offset", coalescing, h100());
  REQUIRE(offset.has_value());
  for (const auto& c : offset_space().enumerate()) {
    const bool aligned = c.at("offset") % 8 == 0;
    CHECK((*offset)(c) == doctest::Approx((*offset)(search::Config{{"offset", aligned ? 0 : 1}})));
  }
  CHECK((*offset)(search::Config{{"offset", 0}}) < (*offset)(search::Config{{"offset", 1}}));

  const auto stride = probe_prior("probe-stride", coalescing, h100());
  REQUIRE(stride.has_value());
  auto st = [&](int s) { return (*stride)(search::Config{{"stride", s}}); };
  CHECK(st(1) < st(2));
  CHECK(st(2) < st(4));
  CHECK(st(4) < st(8));
  CHECK(st(8) == doctest::Approx(st(32)));

  const auto bank = probe_prior("probe-bank", {{"blocks", 4224}, {"reps", 1024}}, h100());
  REQUIRE(bank.has_value());
  auto bk = [&](const char* name) { return (*bank)(bank_config(*find_bank_variant(name))); };
  CHECK(bk("f32-stride1") == doctest::Approx(bk("f32-stride33")));
  CHECK(bk("f32-stride1") < bk("f32-stride2"));
  CHECK(bk("f32-stride2") < bk("f32-stride16"));
  CHECK(bk("f32-stride16") < bk("f32-stride32"));
  CHECK(bk("f32-stride1") < bk("f64-stride1")); // 8-byte lanes: two wavefronts a warp

  CHECK_FALSE(probe_prior("filter", coalescing, h100()).has_value());
  CHECK_THROWS_AS(probe_prior("probe-bank", {{"blocks", 1}}, h100()), std::invalid_argument);
}
