// The matvec device source itself, run on the CPU: templates/matvec/matvec.cu
// compiled as host C++ with the CUDA built-ins it uses emulated
// (cuda_emulation.hpp). Blocks run one after another, so the last block of a
// row tile to arrive is the last one run, which is one legal order of the
// split finish. Checks matvec_col (4-column groups, balanced splits, the
// unrolled finish, cache hints) against the reference on odd sizes, that y
// and nothing else is written, and that the counters are back at zero; and
// matvec_stream's column-major path for comparison. The model's addresses are
// checked against one block of matvec_col, matvec_stream (column- and
// row-major) and matvec_tiled.
#include <memtune/description/random_data.hpp>
#include <memtune/model/access_pattern.hpp>
#include <memtune/templates/matvec.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <vector>

using std::min;
#include "device_code_begin.hpp"
#include "../../templates/matvec/matvec.cu"
#include "device_code_end.hpp"

namespace {

using memtune::templates::MatvecLayout;

using cuda_emulation::Buffer;
using cuda_emulation::GuardedOutput;

// Runs `launch(A, x, y, partial, counters)` for A of m x n
// (column-major, random) with `splits` column splits; checks y, the guard
// after y and the counters.
template <int BLOCK, int ROWS, class Launch>
void check_col(std::int64_t m, std::int64_t n, int splits, Launch launch) {
  CAPTURE(m);
  CAPTURE(n);
  CAPTURE(splits);
  std::vector<float> a(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n));
  memtune::fill_random(a, 41 + static_cast<std::uint64_t>(m));
  memtune::fill_random(x, 43 + static_cast<std::uint64_t>(n));
  const std::vector<double> reference = memtune::templates::matvec_reference(MatvecLayout::col, m, n, a, x);
  const double tolerance = memtune::templates::matvec_tolerance(MatvecLayout::col, m, n, a, x);

  Buffer da(a.size()), dx(x.size()), partial(static_cast<std::size_t>(splits * m));
  std::copy(a.begin(), a.end(), da.data);
  std::copy(x.begin(), x.end(), dx.data);
  GuardedOutput y(static_cast<std::size_t>(m));
  const auto tiles = static_cast<unsigned>((m + ROWS - 1) / ROWS);
  std::vector<unsigned> counters(tiles, 0);

  const cuda_emulation::Index grid{tiles, static_cast<unsigned>(splits), 1};
  cuda_emulation::run_grid({BLOCK, 1, 1}, grid, [&] { launch(da.data, dx.data, y.data(), partial.data, counters.data()); });

  CHECK(y.guard_intact());
  CHECK(std::all_of(counters.begin(), counters.end(), [](unsigned c) { return c == 0; }));
  const auto [bad, first_bad] = y.mismatches(reference, tolerance);
  CAPTURE(first_bad);
  CHECK(bad == 0);
}

template <int BLOCK, int TPR, int VEC, int UNROLL, int HINT> void check_matvec_col(std::int64_t m, std::int64_t n, int splits) {
  CAPTURE(BLOCK);
  CAPTURE(TPR);
  CAPTURE(VEC);
  CAPTURE(UNROLL);
  CAPTURE(HINT);
  check_col<BLOCK, BLOCK / TPR * VEC>(m, n, splits, [&](const float* a, const float* x, float* y, float* partial,
                                                          unsigned* counters) {
    matvec_col<BLOCK, TPR, VEC, UNROLL, HINT>(a, x, y, m, n, 0, partial, counters);
  });
}

// [bytes] from the array's base that instruction g names in a block of
// `warps` warps (a V-wide access names V floats), cut at the array's end
// `limit`: a vector the model names across the end of x stands for the
// kernel's scalar tail loads. An access starting past the end stays in.
std::set<std::uint64_t> named_bytes(const memtune::GlobalInstruction& g, int warps, std::uint64_t limit) {
  std::set<std::uint64_t> bytes;
  for (int warp = 0; warp < warps; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      for (std::int64_t it = 0; it < g.iterations; ++it)
        if (const auto address = g.address(warp, lane, it))
          for (std::uint64_t b = 0; b < static_cast<std::uint64_t>(g.width_bytes); b += 4)
            if (b == 0 || *address + b < limit) bytes.insert(*address + b);
  return bytes;
}

struct MatvecShape {
  std::int64_t m, n;
};

// matvec.cu's column split for matvec_stream and matvec_tiled (the host's
// chunk argument): round_up(ceil(n / splits), 4) columns.
long long stream_chunk(std::int64_t n, int splits) { return ((n + splits - 1) / splits + 3) / 4 * 4; }
// matvec_col's split 0: 4 floor((n / 4) / splits) columns (matvec_col.cuh, split_begin).
long long col_split0(std::int64_t n, int splits) { return splits == 1 ? n : (n / 4) / splits * 4; }

// The model's view of a configuration (matvec_access.cpp: the middle row
// tile, column split 0) against that block run alone: the outputs its store
// names (y, or split 0's partial sums when the columns are split) are the ones
// the block writes, and its loads name the elements of A and x the block
// reads. A read is seen through the output it reaches: A(i) = i + 1 for every
// flat index i, and the block runs once per column k with x the unit vector
// e_k, so its output for row r is i + 1 for the one element of A it multiplied
// by x[k], and non-zero only when it read x[k]. All exact in float (m n below
// 2^24; every other product is zero). Not seen: how often and how wide an
// element is read, and the reads of a thread past the last row (it reads row
// 0 and stores nothing: the shapes keep the middle tile whole), and the
// finish of the last block of a row tile (the block run alone is not the
// last; the model has no instruction for it).
//
// `rows`: rows per block (ROWS in matvec.cu); `split0`: columns of split 0.
template <int BLOCK, class Launch>
void check_model_addresses(MatvecLayout layout, MatvecShape s, std::int64_t rows, std::int64_t split0,
                           const memtune::search::Config& config, Launch launch) {
  CAPTURE(s.m);
  CAPTURE(s.n);
  CAPTURE(config.at("kernel"));
  CAPTURE(config.at("threads_per_row"));
  CAPTURE(config.at("vec"));
  CAPTURE(config.at("unroll"));
  CAPTURE(config.at("x_stage"));
  CAPTURE(config.at("splits"));
  const memtune::Problem problem{{"rows", s.m}, {"cols", s.n}, {"layout", static_cast<std::int64_t>(layout)}};
  const memtune::AccessPattern a =
      memtune::templates::matvec_description().hooks.access_pattern(config, problem, memtune::Target{});
  const auto tiles = static_cast<unsigned>((s.m + rows - 1) / rows);
  const auto splits = static_cast<unsigned>(config.at("splits"));
  const unsigned tile = tiles / 2;
  REQUIRE((tile + 1) * rows <= s.m); // the middle tile is whole
  const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n);

  Buffer da(m * n);
  for (std::size_t i = 0; i < m * n; ++i) da.data[i] = static_cast<float>(i + 1);
  struct Run {
    Buffer x, y, partial;
    std::vector<unsigned> counters;
    Run(std::size_t m, std::size_t n, unsigned splits, unsigned tiles)
        : x(n), y(m), partial(splits * m), counters(tiles, 0) {}
  };
  std::vector<std::unique_ptr<Run>> runs;
  for (std::size_t k = 0; k < n; ++k) {
    runs.push_back(std::make_unique<Run>(m, n, splits, tiles));
    Run& r = *runs.back();
    std::fill(r.x.data, r.x.data + n, 0.0F);
    r.x.data[k] = 1.0F;
    std::fill(r.y.data, r.y.data + m, std::nanf(""));
    std::fill(r.partial.data, r.partial.data + splits * m, std::nanf(""));
  }
  cuda_emulation::run_block_repeatedly({BLOCK, 1, 1}, {tiles, splits, 1}, {tile, 0, 0}, static_cast<int>(n), [&](int k) {
    Run& r = *runs[static_cast<std::size_t>(k)];
    launch(da.data, r.x.data, r.y.data, r.partial.data, r.counters.data());
  });

  // [bytes] from each array's base; a value no element of A explains reads as one past A.
  std::set<std::uint64_t> written, read_a, read_x;
  bool y_untouched = true;
  for (std::size_t k = 0; k < n; ++k) {
    const Run& r = *runs[k];
    const float* out = splits == 1 ? r.y.data : r.partial.data;
    for (std::size_t q = 0; q < (splits == 1 ? m : splits * m); ++q) {
      const float v = out[q];
      if (std::isnan(v)) continue;
      written.insert(q * 4);
      if (v == 0.0F) continue;
      read_x.insert(k * 4);
      const bool known = v >= 1 && v <= static_cast<float>(m * n) && v == std::floor(v);
      read_a.insert(known ? static_cast<std::uint64_t>(v - 1) * 4 : m * n * 4);
    }
    if (splits > 1) y_untouched &= std::all_of(r.y.data, r.y.data + m, [](float v) { return std::isnan(v); });
  }

  const int warps = BLOCK / 32;
  CHECK(a.block_threads == BLOCK);
  CHECK(a.blocks == static_cast<std::int64_t>(tiles) * splits);
  REQUIRE(a.global.size() == 3);
  CHECK(a.global[0].kind == memtune::model::AccessKind::load);
  CHECK(a.global[1].kind == memtune::model::AccessKind::load);
  CHECK(a.global[2].kind == memtune::model::AccessKind::store);
  CHECK_FALSE(written.empty());
  CHECK(y_untouched);
  CHECK(named_bytes(a.global[2], warps, (splits == 1 ? m : splits * m) * 4) == written);
  // Split 0's loads: nothing of the other splits' columns.
  CHECK(named_bytes(a.global[0], warps, m * n * 4) == read_a);
  CHECK(named_bytes(a.global[1], warps, n * 4) == read_x);
  const bool col_major = layout == MatvecLayout::col;
  for (const std::uint64_t b : read_a) CHECK(static_cast<std::int64_t>(col_major ? b / 4 / m : b / 4 % n) < split0);
}

memtune::search::Config matvec_config(memtune::templates::MatvecKernel kernel, int block, int tpr, int vec, int unroll,
                                      int prefetch, int x_smem, int pad, int splits, int hint) {
  return {{"kernel", static_cast<std::int64_t>(kernel)},
          {"block_size", block},
          {"threads_per_row", tpr},
          {"vec", vec},
          {"unroll", unroll},
          {"prefetch", prefetch},
          {"x_stage", x_smem},
          {"pad", pad},
          {"splits", splits},
          {"hint", hint}};
}

template <int BLOCK, int TPR, int VEC, int UNROLL, int HINT> void check_col_addresses(MatvecShape s, int splits) {
  check_model_addresses<BLOCK>(
      MatvecLayout::col, s, BLOCK / TPR * VEC, col_split0(s.n, splits),
      matvec_config(memtune::templates::MatvecKernel::col, BLOCK, TPR, VEC, UNROLL, 0, 0, 0, splits, HINT),
      [&](const float* a, const float* x, float* y, float* partial, unsigned* counters) {
        matvec_col<BLOCK, TPR, VEC, UNROLL, HINT>(a, x, y, s.m, s.n, 0, partial, counters);
      });
}

template <int LAYOUT, int BLOCK, int TPR, int VEC, int UNROLL, int XSMEM, int PREFETCH>
void check_stream_addresses(MatvecShape s, int splits) {
  check_model_addresses<BLOCK>(
      static_cast<MatvecLayout>(LAYOUT), s, LAYOUT == 0 ? BLOCK / TPR * VEC : BLOCK / TPR,
      std::min<std::int64_t>(stream_chunk(s.n, splits), s.n),
      matvec_config(memtune::templates::MatvecKernel::stream, BLOCK, TPR, VEC, UNROLL, PREFETCH, XSMEM, 0, splits, 0),
      [&](const float* a, const float* x, float* y, float* partial, unsigned* counters) {
        const long long chunk = stream_chunk(s.n, splits);
        matvec_stream<LAYOUT, BLOCK, TPR, VEC, UNROLL, XSMEM, PREFETCH>(a, x, y, s.m, s.n, chunk, partial, counters);
      });
}

template <int LAYOUT, int TILE, int PAD> void check_tiled_addresses(MatvecShape s, int splits) {
  check_model_addresses<TILE>(
      static_cast<MatvecLayout>(LAYOUT), s, TILE, std::min<std::int64_t>(stream_chunk(s.n, splits), s.n),
      matvec_config(memtune::templates::MatvecKernel::tiled, TILE, 1, 1, 1, 0, 1, PAD, splits, 0),
      [&](const float* a, const float* x, float* y, float* partial, unsigned* counters) {
        const long long chunk = stream_chunk(s.n, splits);
        matvec_tiled<LAYOUT, TILE, PAD>(a, x, y, s.m, s.n, chunk, partial, counters);
      });
}

} // namespace

TEST_CASE("matvec.cu on the CPU: the model's loads and stores are those the middle row tile's split 0 touches") {
  for (int splits : {1, 4}) {
    // column-major: 260 rows make 3 tiles of 128 (5 of 64), the middle one whole
    for (const MatvecShape s : {MatvecShape{260, 37}, MatvecShape{260, 64}}) {
      check_col_addresses<32, 1, 4, 1, 0>(s, splits);
      check_col_addresses<64, 2, 4, 2, 1>(s, splits);
      check_col_addresses<128, 4, 4, 2, 2>(s, splits);
      check_col_addresses<64, 2, 2, 4, 1>(s, splits);
      check_stream_addresses<0, 128, 4, 4, 4, 0, 1>(s, splits);
      check_stream_addresses<0, 128, 4, 1, 2, 0, 0>(s, splits);
      check_tiled_addresses<0, 32, 1>({100, s.n}, splits);
    }
    // row-major: float4 rows need cols % 4 == 0; tiles of 1 to 32 rows, the
    // middle one whole. One shape per split count: a block's shuffles make
    // these the slowest to emulate.
    const MatvecShape s = splits == 1 ? MatvecShape{100, 36} : MatvecShape{100, 52};
    check_stream_addresses<1, 128, 32, 4, 2, 0, 0>(s, splits);
    check_stream_addresses<1, 128, 4, 4, 4, 1, 1>(s, splits);
    check_stream_addresses<1, 128, 128, 1, 2, 0, 0>(s, splits);
    check_tiled_addresses<1, 32, 0>(s, splits);
  }
}

TEST_CASE("matvec.cu on the CPU: matvec_col, odd sizes, balanced splits, the finish in split order") {
  // m a multiple of VEC (the host's constraint); n odd: column groups past the split end
  for (const auto& [m, n] : {std::pair<std::int64_t, std::int64_t>{4, 1}, {4, 7}, {132, 129}, {260, 1031}}) {
    for (int splits : {1, 3, 8}) {
      check_matvec_col<32, 1, 4, 1, 0>(m, n, splits);
      check_matvec_col<64, 2, 4, 2, 1>(m, n, splits);
      check_matvec_col<128, 4, 4, 2, 2>(m, n, splits);
      check_matvec_col<64, 2, 2, 4, 1>(m, n, splits);
    }
  }
  check_matvec_col<32, 1, 1, 1, 1>(33, 257, 33); // float rows, 33 splits of unequal width, some 4 columns
  check_matvec_col<64, 2, 4, 1, 0>(64, 100, 33); // more splits than column groups: empty splits add zeros
}

TEST_CASE("matvec.cu on the CPU: matvec_stream column-major, the split finish it shares the counters with") {
  for (int splits : {1, 4}) {
    check_col<128, 128>(260, 1031, splits, [&](const float* a, const float* x, float* y, float* partial, unsigned* counters) {
      const long long per = (1031 + splits - 1) / splits, chunk = (per + 3) / 4 * 4;
      matvec_stream<0, 128, 4, 4, 4, 0, 1>(a, x, y, 260, 1031, chunk, partial, counters);
    });
  }
}

TEST_CASE("matvec.cu on the CPU: the reference kernel, both layouts, odd sizes, over fewer blocks than rows") {
  for (const auto& size : {std::pair<std::int64_t, std::int64_t>{37, 29}, {1000, 3}, {1, 77}}) {
    const std::int64_t m = size.first, n = size.second; // captured below: not a structured binding
    CAPTURE(m);
    CAPTURE(n);
    std::vector<float> a(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n));
    memtune::fill_random(a, 5 + static_cast<std::uint64_t>(m));
    memtune::fill_random(x, 9 + static_cast<std::uint64_t>(n));
    for (const MatvecLayout layout : {MatvecLayout::col, MatvecLayout::row}) {
      CAPTURE(static_cast<int>(layout));
      const std::vector<double> reference = memtune::templates::matvec_reference(layout, m, n, a, x);
      GuardedOutput y(static_cast<std::size_t>(m));
      cuda_emulation::run_grid({256, 1, 1}, {2, 1, 1}, [&] {
        if (layout == MatvecLayout::col) matvec_reference<0>(a.data(), x.data(), y.data(), m, n, 0, nullptr, nullptr);
        else matvec_reference<1>(a.data(), x.data(), y.data(), m, n, 0, nullptr, nullptr);
      });
      CHECK(y.guard_intact());
      // Both in double: only the rounding of y to float differs.
      const auto [bad, first_bad] = y.mismatches(reference, 1e-6);
      CAPTURE(first_bad);
      CHECK(bad == 0);
    }
  }
}
