#include <memtune/templates/filter.hpp>

#include "../support/test_target.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace memtune;

namespace {
Target h100_like() { return test_target(90, 227 * 1024); }
Target kepler_like() {
  Target t = h100_like();
  t.cc_major = 3;
  t.cc_minor = 5;
  t.smem_per_block_optin = 48 * 1024;
  t.bank_widths_bytes = {4, 8};
  return t;
}
} // namespace

TEST_CASE("filter space: axes, pruned bank mode, constraints") {
  const auto& f = templates::filter_description();
  const Problem p{{"n", 1 << 24}, {"taps", 21}};
  const search::Space s = f.space(p, h100_like());
  CHECK(s.axes().size() == 8);
  REQUIRE(s.pruned().size() == 1);
  CHECK(s.pruned()[0].name == "bank_mode");
  CHECK(s.pruned()[0].reason.find("sm_90") != std::string::npos);
  const auto configs = s.enumerate();
  CHECK(configs.size() > 200);
  std::size_t direct = 0;
  for (const auto& c : configs) {
    if (c.at("staging") == 0) { // the prefetching loop and the register cap are filter_direct's
      CHECK(c.at("tiles") == 1);
      CHECK(c.at("min_warps") == 0);
    }
    if (c.at("staging") != 0) { // filter_direct: float4s of one segment, 4 or 8 outputs per thread
      ++direct;
      CHECK(c.at("packing") == 1);
      CHECK(c.at("vec") == 4);
      CHECK(c.at("items") >= 4);
    }
    CHECK(c.at("items") % c.at("vec") == 0);
    const std::int64_t halo = c.at("align") ? 12 : 10;
    CHECK(halo % c.at("vec") == 0);
  }
  // direct and shfl x 64..512 threads x 4 or 8 outputs x 1 or 4 tiles x min_warps 0, 48, 64
  CHECK(direct == 96);
  // align=0 leaves a halo of 10: 16-byte loads would straddle it.
  CHECK_FALSE(s.is_valid({{"staging", 0}, {"block_size", 256}, {"packing", 1}, {"items", 4}, {"vec", 4}, {"align", 0}, {"tiles", 1}, {"min_warps", 0}}));
  CHECK(s.is_valid(f.default_config(p, h100_like())));
}

TEST_CASE("filter space on Kepler: a bank-mode axis and the 48 KiB limit") {
  const auto& f = templates::filter_description();
  const Problem p{{"n", 1 << 24}, {"taps", 21}};
  const search::Space kepler = f.space(p, kepler_like());
  CHECK(kepler.pruned().empty());
  CHECK(kepler.axis("bank_mode").values == std::vector<std::int64_t>{4, 8});
  // 1024 threads x 8 items x float4 = 128 KiB of tile: too big at 48 KiB.
  CHECK_FALSE(kepler.is_valid({{"staging", 0}, {"block_size", 1024}, {"packing", 4}, {"items", 8}, {"vec", 4}, {"align", 1}, {"tiles", 1}, {"min_warps", 0}, {"bank_mode", 4}}));
  CHECK(f.space(p, h100_like()).is_valid({{"staging", 0}, {"block_size", 1024}, {"packing", 4}, {"items", 8}, {"vec", 4}, {"align", 1}, {"tiles", 1}, {"min_warps", 0}}));
  CHECK(kepler.is_valid(f.default_config(p, kepler_like())));
}

TEST_CASE("filter launch: grid covers every output, shared memory matches the tile") {
  const auto& f = templates::filter_description();
  for (std::int64_t n : {1LL, 31LL, 1000003LL}) {
    const Problem p{{"n", n}, {"taps", 21}};
    for (const auto& c : f.space(p, h100_like()).enumerate()) {
      const LaunchSpec l = f.launch(c, p, h100_like());
      const std::int64_t tile = c.at("block_size") * c.at("items") * c.at("tiles"); // outputs per block
      const std::int64_t seg = f.environment(c, p, h100_like()).at("seg");
      CHECK(static_cast<std::int64_t>(l.grid.x) * tile >= seg);
      CHECK(static_cast<std::int64_t>(l.grid.x - 1) * tile < seg);
      CHECK(seg * c.at("packing") >= n);
      const std::int64_t halo = c.at("align") ? 12 : 10;
      if (c.at("staging") != 0) { // filter_direct: no shared memory, items / 4 chunks
        CHECK(l.dynamic_smem_bytes == 0U);
        const std::string args = std::to_string(c.at("block_size")) + ", " + std::to_string(c.at("items") / 4) +
                                 ", " + std::to_string(c.at("staging") == 2 ? 1 : 0) + ", " +
                                 std::to_string(c.at("tiles"));
        if (c.at("min_warps") == 0) CHECK(l.name_expression == "filter_direct<" + args + ">");
        else // __launch_bounds__'s minimum blocks: min_warps over the block's warps
          CHECK(l.name_expression == "filter_direct_capped<" + args + ", " +
                                         std::to_string(c.at("min_warps") * 32 / c.at("block_size")) + ">");
        continue;
      }
      CHECK(c.at("tiles") == 1);
      CHECK(l.dynamic_smem_bytes == static_cast<std::size_t>((tile + 2 * halo) * c.at("packing") * 4));
      CHECK(l.name_expression.rfind("filter_kernel<", 0) == 0);
    }
  }
}

TEST_CASE("segment length keeps segments 16-byte aligned") {
  const auto& f = templates::filter_description();
  const auto seg = [&](std::int64_t n, std::int64_t packing) {
    const search::Config c{{"staging", 0}, {"block_size", 256}, {"packing", packing}, {"items", 4}, {"vec", 4},
                           {"align", 1},   {"tiles", 1},        {"min_warps", 0}};
    return f.environment(c, {{"n", n}, {"taps", 21}}, h100_like()).at("seg");
  };
  CHECK(seg(31, 1) == 31);
  CHECK(seg(31, 2) == 16);
  CHECK(seg(1, 4) == 4);
  CHECK(seg(1 << 24, 2) == (1 << 23));
}

TEST_CASE("filter reference: direct convolution with zero padding, on odd sizes") {
  const std::vector<float> taps = templates::random_filter_taps(5, 3);
  double sum = 0;
  for (float c : taps) sum += std::fabs(c);
  CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
  for (std::size_t n : {1U, 2U, 7U, 31U}) {
    std::vector<float> in(n);
    for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i + 1);
    const auto out = templates::filter_reference(in, taps);
    for (std::size_t i = 0; i < n; ++i) {
      double expect = 0;
      for (int k = 0; k < 5; ++k) {
        const long j = static_cast<long>(i) - 2 + k;
        if (j >= 0 && j < static_cast<long>(n)) expect += static_cast<double>(taps[k]) * in[static_cast<std::size_t>(j)];
      }
      CHECK(out[i] == doctest::Approx(expect));
    }
  }
}
