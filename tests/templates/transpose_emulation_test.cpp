// The transpose device source itself, run on the CPU: templates/transpose/transpose.cu
// is compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, the kernel's
// __shared__ tile as a function-local static reused block after block). No
// GPU here, so this is what checks the kernel's indexing and edge guards:
// for every configuration of the space, on odd shapes, every output equals
// the reference and nothing past the output is written.
#include <memtune/description/random_data.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/transpose.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <new>
#include <set>
#include <vector>

#include "device_code_begin.hpp"
#include "../../templates/transpose/transpose.cu"
#include "device_code_end.hpp"

namespace {

struct Shape {
  int rows, cols;
};

constexpr int block_x(int tile) { return tile < 32 ? tile : 32; }

template <int TILE, int TILE_ROWS, int ROWS, int PAD> void check_one(Shape s) {
  CAPTURE(TILE);
  CAPTURE(TILE_ROWS);
  CAPTURE(ROWS);
  CAPTURE(PAD);
  CAPTURE(s.rows);
  CAPTURE(s.cols);
  const std::size_t n = static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols);
  std::vector<float> in(n);
  memtune::fill_random(in, 5 + n);
  const std::vector<double> reference = memtune::templates::transpose_reference(in, s.rows, s.cols);

  constexpr std::size_t guard = 64;
  const float sentinel = 12345.0F;
  std::vector<float> out(n + guard);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = i < n ? std::nanf("") : sentinel;

  const unsigned gx = static_cast<unsigned>((s.cols + TILE - 1) / TILE);
  const int shifted = s.rows % 8 != 0 ? 1 : 0; // output segments shifted onto sectors, 8 rows above each tile loaded
  const unsigned gy = static_cast<unsigned>((s.rows + 7 * shifted + TILE_ROWS - 1) / TILE_ROWS);
  cuda_emulation::run_grid({block_x(TILE), ROWS, 1}, {gx, gy, 1}, [&] {
    transpose_kernel<TILE, TILE_ROWS, ROWS, PAD>(in.data(), out.data(), s.rows, s.cols);
  });

  bool tail_intact = true;
  for (std::size_t i = n; i < n + guard; ++i) tail_intact &= out[i] == sentinel;
  CHECK(tail_intact);
  std::int64_t bad = 0, first_bad = -1;
  for (std::size_t i = 0; i < n; ++i)
    if (!(out[i] == reference[i])) { // NaN (unwritten) never equals
      if (first_bad < 0) first_bad = static_cast<std::int64_t>(i);
      ++bad;
    }
  CAPTURE(first_bad);
  CHECK(bad == 0);
}

// Every configuration of the space (transpose.cpp's constraints): tile rows a
// whole number of min(TILE, 32) pieces, every block_rows that leaves each
// thread a tile row and an output row, whole warps, at most 1024 threads;
// padded and not.
template <int TILE, int TILE_ROWS = 16, int ROWS = 1> void check_tile(Shape s) {
  if constexpr (TILE_ROWS <= 64) {
    if constexpr (ROWS <= TILE && ROWS <= TILE_ROWS && block_x(TILE) * ROWS <= 1024) {
      if constexpr (TILE_ROWS % block_x(TILE) == 0 && block_x(TILE) * ROWS >= 32) {
        check_one<TILE, TILE_ROWS, ROWS, 0>(s);
        check_one<TILE, TILE_ROWS, ROWS, 1>(s);
      }
      check_tile<TILE, TILE_ROWS, ROWS * 2>(s);
    } else {
      check_tile<TILE, TILE_ROWS * 2, 1>(s);
    }
  }
}

// The model's view of a configuration (transpose_access.cpp: the block in
// the middle of the grid) against that block run alone: the output elements
// its store instruction names are the ones the block writes, and the input
// elements its load names are the ones it reads. Each input element holds its
// own index, so a written output tells which input element was read.
template <int TILE, int TILE_ROWS, int ROWS, int PAD> void check_model_addresses(Shape s) {
  CAPTURE(TILE);
  CAPTURE(TILE_ROWS);
  CAPTURE(ROWS);
  CAPTURE(PAD);
  CAPTURE(s.rows);
  CAPTURE(s.cols);
  const std::size_t n = static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols);
  std::vector<float> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i); // exact below 2^24
  std::vector<float> out(n, std::nanf(""));
  const unsigned gx = static_cast<unsigned>((s.cols + TILE - 1) / TILE);
  const int shifted = s.rows % 8 != 0 ? 1 : 0; // output segments shifted onto sectors, 8 rows above each tile loaded
  const unsigned gy = static_cast<unsigned>((s.rows + 7 * shifted + TILE_ROWS - 1) / TILE_ROWS);
  cuda_emulation::run_blocks({block_x(TILE), ROWS, 1}, {gx, gy, 1}, {{gx / 2, gy / 2, 0}}, [&] {
    transpose_kernel<TILE, TILE_ROWS, ROWS, PAD>(in.data(), out.data(), s.rows, s.cols);
  });
  std::set<std::uint64_t> written, read; // [bytes] from each matrix's base
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isnan(out[i])) {
      written.insert(i * 4);
      read.insert(static_cast<std::uint64_t>(out[i]) * 4);
    }

  const memtune::Problem problem{{"rows", s.rows}, {"cols", s.cols}};
  const memtune::search::Config config{{"tile", TILE}, {"tile_rows", TILE_ROWS}, {"block_rows", ROWS}, {"pad", PAD}};
  const memtune::AccessPattern a =
      memtune::templates::transpose_description().hooks.access_pattern(config, problem, memtune::Target{});
  REQUIRE(a.global.size() == 2);
  const auto named = [&](const memtune::GlobalInstruction& g) {
    std::set<std::uint64_t> bytes;
    for (int warp = 0; warp < (block_x(TILE) * ROWS + 31) / 32; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (std::int64_t it = 0; it < g.iterations; ++it)
          if (const auto address = g.address(warp, lane, it)) bytes.insert(*address);
    return bytes;
  };
  // The load names the block's whole tile: where rows % 8 != 0 also the 8
  // rows above, of which the block writes only the part its shifted segments start in.
  std::set<std::uint64_t> tile; // [bytes] of `in`
  const int base = static_cast<int>(gy / 2) * TILE_ROWS, col0 = static_cast<int>(gx / 2) * TILE;
  for (int row = std::max(0, base - 8 * shifted); row < std::min(s.rows, base + TILE_ROWS); ++row)
    for (int col = col0; col < std::min(s.cols, col0 + TILE); ++col)
      tile.insert(static_cast<std::uint64_t>(row * s.cols + col) * 4);
  CHECK(a.global[0].kind == memtune::model::AccessKind::load);
  CHECK(named(a.global[0]) == tile);
  CHECK(std::includes(tile.begin(), tile.end(), read.begin(), read.end()));
  if (shifted == 0) CHECK(read == tile);
  CHECK(a.global[1].kind == memtune::model::AccessKind::store);
  CHECK(named(a.global[1]) == written);
  CHECK_FALSE(written.empty());
}

} // namespace

TEST_CASE("transpose.cu on the CPU: the model's load and store addresses are those the middle block touches") {
  for (const Shape s : {Shape{1, 37}, Shape{33, 17}, Shape{70, 131}, Shape{96, 64}}) {
    check_model_addresses<16, 16, 4, 1>(s);
    check_model_addresses<16, 64, 2, 0>(s);
    check_model_addresses<32, 32, 8, 1>(s);
    check_model_addresses<32, 64, 1, 0>(s);
    check_model_addresses<64, 32, 4, 1>(s);
    check_model_addresses<64, 64, 16, 0>(s);
  }
}

TEST_CASE("transpose.cu on the CPU: every configuration of the space on odd shapes") {
  // A row, a column (each smaller than any tile), partial tiles on both edges, several tiles each way.
  // Rows not a multiple of 8 (shifted output segments) but one, 40.
  for (const Shape s : {Shape{1, 37}, Shape{29, 1}, Shape{33, 17}, Shape{70, 131}, Shape{40, 19}}) {
    check_tile<16>(s);
    check_tile<32>(s);
    check_tile<64>(s);
  }
}

TEST_CASE("transpose.cu on the CPU: the reference kernel, odd shapes, over fewer blocks than elements") {
  for (const Shape s : {Shape{37, 53}, Shape{1, 300}, Shape{300, 1}}) {
    CAPTURE(s.rows);
    CAPTURE(s.cols);
    const std::size_t n = static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols);
    std::vector<float> in(n);
    memtune::fill_random(in, 11 + n);
    const std::vector<double> reference = memtune::templates::transpose_reference(in, s.rows, s.cols);
    std::vector<float> out(n, std::nanf(""));
    cuda_emulation::run_grid({256, 1, 1}, {3, 1, 1}, [&] { transpose_reference(in.data(), out.data(), s.rows, s.cols); });
    std::int64_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += out[i] == reference[i] ? 0 : 1;
    CHECK(bad == 0);
  }
}
