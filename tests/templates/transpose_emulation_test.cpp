// The transpose device source itself, run on the CPU: templates/transpose/transpose.cu
// is compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, the kernel's
// __shared__ tile as a function-local static reused block after block). No
// GPU here, so this is what checks the kernel's indexing and edge guards:
// for every configuration of the space, on odd shapes, every output equals
// the reference and nothing past the output is written.
#include <memtune/description/random_data.hpp>
#include <memtune/templates/transpose.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <new>
#include <vector>

#include "device_code_begin.hpp"
#include "../../templates/transpose/transpose.cu"
#include "device_code_end.hpp"

namespace {

struct Shape {
  int rows, cols;
};

template <int TILE, int ROWS, int PAD> void check_one(Shape s) {
  CAPTURE(TILE);
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
  const unsigned gy = static_cast<unsigned>((s.rows + TILE - 1) / TILE);
  cuda_emulation::run_grid({TILE, ROWS, 1}, {gx, gy, 1}, [&] {
    transpose_kernel<TILE, ROWS, PAD>(in.data(), out.data(), s.rows, s.cols);
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

// Every block_rows a tile allows (whole warps, at most 1024 threads), padded and not.
template <int TILE, int ROWS = 1> void check_tile(Shape s) {
  if constexpr (ROWS <= TILE && TILE * ROWS <= 1024) {
    if constexpr (TILE * ROWS >= 32) {
      check_one<TILE, ROWS, 0>(s);
      check_one<TILE, ROWS, 1>(s);
    }
    check_tile<TILE, ROWS * 2>(s);
  }
}

} // namespace

TEST_CASE("transpose.cu on the CPU: every configuration of the space on odd shapes") {
  // A row, a column (each smaller than any tile), partial tiles on both edges, several tiles each way.
  for (const Shape s : {Shape{1, 37}, Shape{29, 1}, Shape{33, 17}, Shape{70, 131}}) {
    check_tile<16>(s);
    check_tile<32>(s);
    check_tile<64>(s);
  }
}
