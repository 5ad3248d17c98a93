// The fdtd device source itself, run on the CPU: templates/fdtd/fdtd.cu is
// compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, the kernel's
// __shared__ array as a function-local static reused block after block). No
// GPU here, so this is what checks the kernel's queue, prefetch slots, halo
// indexing, z-chunks and guards: every output matches the reference on odd
// sizes, and nothing outside the output is written.
#include <memtune/random_data.hpp>
#include <memtune/templates/fdtd.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <new>
#include <vector>

using std::min;
#include "device_code_begin.hpp"
// One copy of the source per radius (R and the coefficients are compile-time there).
namespace radius1 {
#define MEMTUNE_RADIUS 1
#include "../../templates/fdtd/fdtd.cu"
#undef MEMTUNE_RADIUS
} // namespace radius1
namespace radius2 {
#define MEMTUNE_RADIUS 2
#include "../../templates/fdtd/fdtd.cu"
#undef MEMTUNE_RADIUS
} // namespace radius2
namespace radius3 {
#define MEMTUNE_RADIUS 3
#include "../../templates/fdtd/fdtd.cu"
#undef MEMTUNE_RADIUS
} // namespace radius3
namespace radius4 {
#define MEMTUNE_RADIUS 4
#include "../../templates/fdtd/fdtd.cu"
#undef MEMTUNE_RADIUS
} // namespace radius4
#include "device_code_end.hpp"

namespace {

// 256-byte aligned floats, like cuMemAlloc's.
struct Buffer {
  std::size_t count;
  float* data;
  explicit Buffer(std::size_t n)
      : count(n), data(static_cast<float*>(::operator new(n * sizeof(float) + 256, std::align_val_t(256)))) {}
  ~Buffer() { ::operator delete(data, std::align_val_t(256)); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

struct Size {
  int nx, ny, nz;
};

template <int R> float* coefficients() {
  if constexpr (R == 1) return radius1::memtune_fdtd_coeffs;
  else if constexpr (R == 2) return radius2::memtune_fdtd_coeffs;
  else if constexpr (R == 3) return radius3::memtune_fdtd_coeffs;
  else return radius4::memtune_fdtd_coeffs;
}

template <int R, int BX, int BY, int VX, int PF, int PAD>
void kernel(const float* in, float* out, int nx, int ny, int nz, int chunk) {
  if constexpr (R == 1) radius1::fdtd_kernel<BX, BY, VX, PF, 1, PAD>(in, out, nx, ny, nz, chunk);
  else if constexpr (R == 2) radius2::fdtd_kernel<BX, BY, VX, PF, 1, PAD>(in, out, nx, ny, nz, chunk);
  else if constexpr (R == 3) radius3::fdtd_kernel<BX, BY, VX, PF, 1, PAD>(in, out, nx, ny, nz, chunk);
  else radius4::fdtd_kernel<BX, BY, VX, PF, 1, PAD>(in, out, nx, ny, nz, chunk);
}

template <int R, int BX, int BY, int VX, int PF, int PAD = 1> void check_one(Size s, int zsplit) {
  CAPTURE(R);
  CAPTURE(BX);
  CAPTURE(BY);
  CAPTURE(VX);
  CAPTURE(PF);
  CAPTURE(PAD);
  CAPTURE(s.nx);
  CAPTURE(s.ny);
  CAPTURE(s.nz);
  CAPTURE(zsplit);
  const std::size_t n = static_cast<std::size_t>(s.nx) * s.ny * s.nz;
  std::vector<float> input(n);
  memtune::fill_random(input, 17 + n);
  const std::vector<float> c = memtune::templates::random_fdtd_coefficients(R, 3);
  std::copy(c.begin(), c.end(), coefficients<R>());
  const std::vector<double> reference = memtune::templates::fdtd_reference(input, s.nx, s.ny, s.nz, c);

  Buffer in(n);
  std::copy(input.begin(), input.end(), in.data);
  constexpr std::size_t guard = 64;
  Buffer out(n + guard);
  const float sentinel = 12345.0F;
  for (std::size_t i = 0; i < n + guard; ++i) out.data[i] = i < n ? std::nanf("") : sentinel;

  const int chunk = (s.nz + zsplit - 1) / zsplit;
  const unsigned gx = static_cast<unsigned>((s.nx + BX * VX - 1) / (BX * VX));
  const unsigned gy = static_cast<unsigned>((s.ny + BY - 1) / BY);
  const unsigned gz = static_cast<unsigned>((s.nz + chunk - 1) / chunk);
  cuda_emulation::run_grid({BX, BY, 1}, {gx, gy, gz},
                           [&] { kernel<R, BX, BY, VX, PF, PAD>(in.data, out.data, s.nx, s.ny, s.nz, chunk); });

  bool tail_intact = true;
  for (std::size_t i = n; i < n + guard; ++i) tail_intact &= out.data[i] == sentinel;
  CHECK(tail_intact);
  const double tolerance = 2.0 * (6 * R + 1) * FLT_EPSILON;
  std::int64_t bad = 0, first_bad = -1;
  for (std::size_t i = 0; i < n; ++i)
    if (!(std::fabs(out.data[i] - reference[i]) <= tolerance)) {
      if (first_bad < 0) first_bad = static_cast<std::int64_t>(i);
      ++bad;
    }
  CAPTURE(first_bad);
  CHECK(bad == 0);
}

constexpr Size kOne{1, 1, 1}, kOdd{31, 17, 9}, kNonMultiple{67, 35, 20};

} // namespace

TEST_CASE("fdtd.cu on the CPU: radius 4, every vector width and prefetch depth, odd sizes and z-chunks") {
  for (const Size s : {kOne, kOdd, kNonMultiple}) {
    for (int zsplit : {1, 3}) {
      if (zsplit > s.nz) continue;
      check_one<4, 32, 4, 1, 0>(s, zsplit);
      check_one<4, 32, 4, 4, 1>(s, zsplit);
      check_one<4, 32, 4, 2, 2>(s, zsplit);
      check_one<4, 64, 4, 2, 1>(s, zsplit);
      check_one<4, 32, 8, 4, 2>(s, zsplit);
      check_one<4, 32, 8, 1, 1>(s, zsplit);
    }
  }
  check_one<4, 32, 4, 4, 0, 0>(kNonMultiple, 2); // unpadded rows
  check_one<4, 32, 16, 4, 2>(kNonMultiple, 8);   // 8 chunks of 3 planes (the last one 2 planes shorter)
  check_one<4, 64, 8, 1, 2>(kOdd, 9);            // one plane per chunk
}

TEST_CASE("fdtd.cu on the CPU: radius 1, 2, 3 (halo narrower than a vector)") {
  for (const Size s : {kOne, kOdd, kNonMultiple}) {
    check_one<1, 32, 4, 1, 0>(s, 1);
    check_one<1, 32, 4, 4, 2>(s, std::min(2, s.nz));
    check_one<1, 64, 4, 2, 1>(s, 1);
  }
  check_one<2, 32, 4, 4, 1>(kNonMultiple, 3);
  check_one<2, 32, 4, 2, 0>(kOdd, 2);
  check_one<3, 32, 4, 4, 2>(kNonMultiple, 2);
  check_one<3, 32, 8, 1, 1>(kOdd, 1);
  check_one<3, 64, 4, 2, 0>(kOdd, 4);
}
