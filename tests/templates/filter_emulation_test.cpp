// The filter device source itself, run on the CPU: templates/filter/filter.cu
// compiled as host C++ with the CUDA built-ins it uses emulated
// (cuda_emulation.hpp: a std::thread per CUDA thread, block barriers, warp
// shuffles). No GPU here, so this is what checks the kernel without the shared
// tile (filter_direct, with and without shuffles): every output matches the
// reference on odd sizes, and nothing past the output is written. The model's
// addresses are checked against the middle block of filter_direct and of the
// shared-tile kernel (filter_kernel).
#include <memtune/description/random_data.hpp>
#include <memtune/templates/filter.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <set>
#include <vector>

#include "device_code_begin.hpp"
// One copy of the source per tap count (compile-time there).
namespace taps21 {
#define MEMTUNE_TAPS 21
#include "../../templates/filter/filter.cu"
#undef MEMTUNE_TAPS
} // namespace taps21
namespace taps33 {
#define MEMTUNE_TAPS 33
#include "../../templates/filter/filter.cu"
#undef MEMTUNE_TAPS
} // namespace taps33
namespace taps4 {
#define MEMTUNE_TAPS 4
#include "../../templates/filter/filter.cu"
#undef MEMTUNE_TAPS
} // namespace taps4
#include "device_code_end.hpp"

namespace {

using cuda_emulation::Buffer;
using cuda_emulation::GuardedOutput;

template <int TAPS> float* taps_symbol() {
  if constexpr (TAPS == 21) return taps21::memtune_filter_taps;
  else if constexpr (TAPS == 33) return taps33::memtune_filter_taps;
  else return taps4::memtune_filter_taps;
}

// Runs run(in, out) on random input of n floats and checks every output
// against the reference and that nothing past the output was written.
template <int TAPS, class Run> void check_outputs(std::int64_t n, Run run) {
  CAPTURE(TAPS);
  CAPTURE(n);
  std::vector<float> input(static_cast<std::size_t>(n));
  memtune::fill_random(input, 29 + static_cast<std::uint64_t>(n));
  const std::vector<float> c = memtune::templates::random_filter_taps(TAPS, 7);
  std::copy(c.begin(), c.end(), taps_symbol<TAPS>());
  const std::vector<double> reference = memtune::templates::filter_reference(input, c);

  const auto count = static_cast<std::size_t>(n);
  Buffer in(count);
  std::copy(input.begin(), input.end(), in.data);
  GuardedOutput out(count);

  run(in.data, out.data());

  CHECK(out.guard_intact());
  const auto [bad, first_bad] = out.mismatches(reference, 4.0 * TAPS * FLT_EPSILON); // |taps| sum to 1, |input| <= 1
  CAPTURE(first_bad);
  CHECK(bad == 0);
}

// MINB > 0: filter_direct_capped (the same body under __launch_bounds__(BLOCK, MINB)).
template <int TAPS, int BLOCK, int CHUNKS, int SHFL, int TILES = 1, int MINB = 0> void check_direct(std::int64_t n) {
  static_assert(MINB == 0 || TAPS == 21, "the capped kernel is instantiated for 21 taps only");
  CAPTURE(BLOCK);
  CAPTURE(CHUNKS);
  CAPTURE(SHFL);
  CAPTURE(TILES);
  check_outputs<TAPS>(n, [&](const float* in, float* out) {
    const std::int64_t per_block = std::int64_t{BLOCK} * 4 * CHUNKS * TILES;
    const auto grid = static_cast<unsigned>((n + per_block - 1) / per_block);
    const int ni = static_cast<int>(n);
    cuda_emulation::run_grid({BLOCK, 1, 1}, {grid, 1, 1}, [&] {
      if constexpr (MINB > 0) taps21::filter_direct_capped<BLOCK, CHUNKS, SHFL, TILES, MINB>(in, out, ni, ni);
      else if constexpr (TAPS == 21) taps21::filter_direct<BLOCK, CHUNKS, SHFL, TILES>(in, out, ni, ni);
      else if constexpr (TAPS == 33) taps33::filter_direct<BLOCK, CHUNKS, SHFL, TILES>(in, out, ni, ni);
      else taps4::filter_direct<BLOCK, CHUNKS, SHFL, TILES>(in, out, ni, ni);
    });
  });
}

constexpr std::int64_t kSizes[] = {1, 3, 37, 1000, 4099, 20011};

// The model's view of filter_direct (filter_direct_access.cpp: the block in
// the middle of the signal) against that block run alone: the outputs its
// store instruction names (float4s) are the ones the block writes.
template <int BLOCK, int CHUNKS, int SHFL, int TILES> void check_store_addresses(std::int64_t n) {
  CAPTURE(n);
  CAPTURE(BLOCK);
  CAPTURE(CHUNKS);
  CAPTURE(SHFL);
  CAPTURE(TILES);
  const auto count = static_cast<std::size_t>(n);
  Buffer in(count);
  std::fill(in.data, in.data + count, 1.0F);
  std::vector<float> out(count, std::nanf(""));
  const std::int64_t per_block = std::int64_t{BLOCK} * 4 * CHUNKS * TILES;
  const auto grid = static_cast<unsigned>((n + per_block - 1) / per_block);
  const int ni = static_cast<int>(n);
  cuda_emulation::run_blocks({BLOCK, 1, 1}, {grid, 1, 1}, {{grid / 2, 0, 0}},
                             [&] { taps21::filter_direct<BLOCK, CHUNKS, SHFL, TILES>(in.data, out.data(), ni, ni); });
  std::set<std::int64_t> written;
  for (std::size_t i = 0; i < count; ++i)
    if (!std::isnan(out[i])) written.insert(static_cast<std::int64_t>(i));

  const memtune::Problem problem{{"n", n}, {"taps", 21}};
  const memtune::search::Config config{{"staging", SHFL ? 2 : 1}, {"block_size", BLOCK}, {"packing", 1},
                                       {"items", 4 * CHUNKS},      {"vec", 4},           {"align", 1},
                                       {"tiles", TILES},           {"min_warps", 0}};
  const memtune::AccessPattern a =
      memtune::templates::filter_description().hooks.access_pattern(config, problem, memtune::Target{});
  std::set<std::int64_t> named;
  for (const memtune::GlobalInstruction& g : a.global) {
    if (g.kind != memtune::model::AccessKind::store) continue;
    for (int warp = 0; warp < (BLOCK + 31) / 32; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (std::int64_t it = 0; it < g.iterations; ++it)
          if (const auto address = g.address(warp, lane, it))
            for (std::int64_t e = 0; e < g.width_bytes / 4; ++e)
              if (static_cast<std::int64_t>(*address / 4) + e < n) named.insert(static_cast<std::int64_t>(*address / 4) + e);
  }
  CHECK_FALSE(written.empty());
  CHECK(named == written);
}

// The model's view of filter_kernel, the shared-tile kernel (filter_access.cpp:
// the block in the middle of segment 0, and the same tile of every other
// segment) against that block run alone: the outputs its store instructions
// name are the ones the block writes, and its loads name the inputs the block
// stages. A read is seen through the output it reaches: in[i] = i + 1, and the
// block runs once per tap k with the taps the unit vector e_k, so output o
// comes out as in[o - R + k] = o - R + k + 1 (exact in float below 2^24). So
// the loads are seen as far as an output uses them: the tile and R inputs each
// side. With align 1 the staged halo is R rounded up to 4 (HALO), and its
// HALO - R outermost inputs each side reach no output: the model's loads must
// name exactly those besides the ones seen. Not seen: how often and how wide
// an input is read.
template <int BLOCK, int PACK, int ITEMS, int VEC, int ALIGN> void check_kernel_addresses(std::int64_t n) {
  CAPTURE(n);
  CAPTURE(BLOCK);
  CAPTURE(PACK);
  CAPTURE(ITEMS);
  CAPTURE(VEC);
  CAPTURE(ALIGN);
  constexpr int taps = 21, radius = taps / 2, halo = ALIGN ? (radius + 3) / 4 * 4 : radius;
  const std::int64_t seg = PACK == 1 ? n : ((n + PACK - 1) / PACK + 3) / 4 * 4; // filter.cpp's `seg`
  const std::int64_t tile = std::int64_t{BLOCK} * ITEMS;
  const auto blocks = static_cast<unsigned>((seg + tile - 1) / tile);
  const std::int64_t tile_base = (blocks / 2) * tile;
  const auto count = static_cast<std::size_t>(n);
  Buffer in(count);
  for (std::size_t i = 0; i < count; ++i) in.data[i] = static_cast<float>(i + 1);

  std::set<std::int64_t> written, read; // [floats] from each array's base
  for (int k = 0; k < taps; ++k) {
    std::fill(taps21::memtune_filter_taps, taps21::memtune_filter_taps + taps, 0.0F);
    taps21::memtune_filter_taps[k] = 1.0F;
    std::vector<float> out(count, std::nanf(""));
    cuda_emulation::run_blocks({BLOCK, 1, 1}, {blocks, 1, 1}, {{blocks / 2, 0, 0}}, [&] {
      taps21::filter_kernel<BLOCK, PACK, ITEMS, VEC, ALIGN>(in.data, out.data(), static_cast<int>(n),
                                                            static_cast<int>(seg));
    });
    for (std::size_t q = 0; q < count; ++q) {
      if (std::isnan(out[q])) continue;
      written.insert(static_cast<std::int64_t>(q));
      const float v = out[q]; // a value no input explains reads as input -1
      const bool known = v >= 1 && v <= static_cast<float>(n) && v == std::floor(v);
      if (v != 0.0F) read.insert(known ? static_cast<std::int64_t>(v) - 1 : -1);
    }
  }
  // The staged inputs no output uses: HALO - R each side of every segment's tile.
  std::set<std::int64_t> unused_halo;
  for (std::int64_t p = 0; p < PACK; ++p)
    for (std::int64_t e = 0; e < halo - radius; ++e) {
      unused_halo.insert(p * seg + tile_base - halo + e);
      unused_halo.insert(p * seg + tile_base + tile + radius + e);
    }

  const memtune::Problem problem{{"n", n}, {"taps", taps}};
  const memtune::search::Config config{{"staging", 0}, {"block_size", BLOCK}, {"packing", PACK}, {"items", ITEMS},
                                       {"vec", VEC},     {"align", ALIGN},      {"tiles", 1},       {"min_warps", 0}};
  const memtune::AccessPattern a =
      memtune::templates::filter_description().hooks.access_pattern(config, problem, memtune::Target{});
  CHECK(a.blocks == blocks);
  std::set<std::int64_t> named_loads, named_stores; // [floats]
  for (const memtune::GlobalInstruction& g : a.global)
    for (int warp = 0; warp < (BLOCK + 31) / 32; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (std::int64_t it = 0; it < g.iterations; ++it)
          if (const auto address = g.address(warp, lane, it))
            for (std::int64_t e = 0; e < g.width_bytes / 4; ++e)
              (g.kind == memtune::model::AccessKind::load ? named_loads : named_stores)
                  .insert(static_cast<std::int64_t>(*address / 4) + e);
  CHECK_FALSE(written.empty());
  CHECK(named_stores == written);
  std::set<std::int64_t> seen_or_unused = read;
  seen_or_unused.insert(unused_halo.begin(), unused_halo.end());
  CHECK(named_loads == seen_or_unused);
}

} // namespace

TEST_CASE("filter.cu on the CPU: the model's loads and stores are those filter_kernel's middle block touches") {
  for (const std::int64_t n : {std::int64_t{20011}, std::int64_t{16384}}) {
    check_kernel_addresses<64, 1, 4, 4, 1>(n);
    check_kernel_addresses<32, 1, 1, 1, 0>(n); // the article's kernel: a halo of exactly R
    check_kernel_addresses<128, 1, 8, 2, 1>(n);
    check_kernel_addresses<64, 2, 2, 2, 0>(n);  // float2: two segments n/2 apart
    check_kernel_addresses<32, 4, 8, 4, 1>(n);  // float4: four segments
    check_kernel_addresses<64, 2, 4, 1, 1>(n);
  }
}

TEST_CASE("filter.cu on the CPU: the model's output stores are those filter_direct's middle block writes") {
  for (const std::int64_t n : {std::int64_t{20011}, std::int64_t{65536}}) {
    check_store_addresses<64, 1, 0, 1>(n);
    check_store_addresses<32, 2, 1, 1>(n);
    check_store_addresses<64, 2, 0, 4>(n);
    check_store_addresses<32, 1, 1, 8>(n);
  }
}

TEST_CASE("filter.cu on the CPU: filter_direct, read-only window and shuffled window, odd sizes") {
  for (const std::int64_t n : kSizes) {
    check_direct<21, 64, 1, 0>(n);
    check_direct<21, 32, 2, 0>(n);
    check_direct<21, 64, 1, 1>(n);
    check_direct<21, 32, 4, 1>(n);
  }
  check_direct<33, 64, 2, 1>(20011);
  check_direct<33, 32, 1, 0>(4099);
  check_direct<4, 32, 2, 1>(1000); // even taps, halo of one float4
  check_direct<4, 64, 1, 0>(37);
}

// TILES > 1: the next tile's loads land in the other register buffer while
// this tile computes; a block's later tiles may lie wholly past n.
TEST_CASE("filter.cu on the CPU: filter_direct over several tiles per block, odd sizes") {
  for (const std::int64_t n : kSizes) {
    check_direct<21, 32, 1, 0, 2>(n);
    check_direct<21, 64, 2, 0, 4>(n);
    check_direct<21, 32, 1, 1, 8>(n);
    check_direct<21, 64, 2, 1, 2>(n);
  }
  check_direct<33, 32, 1, 0, 3>(4099); // an odd tile count: the buffers alternate unevenly
  check_direct<4, 32, 2, 1, 4>(1000);
  check_direct<21, 64, 1, 0, 2, 16>(4099); // filter_direct_capped: the same body
}

TEST_CASE("filter.cu on the CPU: the reference kernel, over fewer blocks than outputs (its grid-stride loop)") {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{37}, std::int64_t{4099}}) {
    const int ni = static_cast<int>(n);
    check_outputs<21>(n, [&](const float* in, float* out) {
      cuda_emulation::run_grid({256, 1, 1}, {3, 1, 1}, [&] { taps21::filter_reference(in, out, ni, ni); });
    });
    check_outputs<4>(n, [&](const float* in, float* out) {
      cuda_emulation::run_grid({256, 1, 1}, {1, 1, 1}, [&] { taps4::filter_reference(in, out, ni, ni); });
    });
  }
}
