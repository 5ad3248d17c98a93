// The matvec device source itself, run on the CPU: templates/matvec/matvec.cu
// compiled as host C++ with the CUDA built-ins it uses emulated
// (cuda_emulation.hpp). Blocks run one after another, so the last block of a
// row tile to arrive is the last one run, which is one legal order of the
// split finish. Checks matvec_col (4-column groups, balanced splits, the
// unrolled finish, cache hints) against the reference on odd sizes, that y
// and nothing else is written, and that the counters are back at zero; and
// matvec_stream's column-major path for comparison.
#include <memtune/description/random_data.hpp>
#include <memtune/templates/matvec.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
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

} // namespace

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
