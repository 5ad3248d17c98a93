// The fdtd device source itself, run on the CPU: templates/fdtd/fdtd.cu is
// compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, the kernel's
// __shared__ array as a function-local static reused block after block). No
// GPU here, so this is what checks the kernel's queue, prefetch slots, halo
// indexing, z-chunks and guards: every output matches the reference on odd
// sizes, and nothing outside the output is written.
#include <memtune/description/random_data.hpp>
#include <memtune/templates/fdtd.hpp>

#include "cuda_emulation.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <new>
#include <vector>

using std::max;
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

using cuda_emulation::Buffer;
using cuda_emulation::GuardedOutput;

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

template <int R, int BX, int BY, int VX, int KY, int PF, int ZU, int COPY>
void ring_kernel(const float* in, float* out, int nx, int ny, int nz, int chunk) {
  if constexpr (R == 1) radius1::fdtd_ring<BX, BY, VX, KY, PF, ZU, 1, COPY>(in, out, nx, ny, nz, chunk);
  else if constexpr (R == 2) radius2::fdtd_ring<BX, BY, VX, KY, PF, ZU, 1, COPY>(in, out, nx, ny, nz, chunk);
  else if constexpr (R == 3) radius3::fdtd_ring<BX, BY, VX, KY, PF, ZU, 1, COPY>(in, out, nx, ny, nz, chunk);
  else radius4::fdtd_ring<BX, BY, VX, KY, PF, ZU, 1, COPY>(in, out, nx, ny, nz, chunk);
}

// Runs run(in, out, chunk) on random input of size s and checks every output
// against the reference and that nothing past the output was written.
template <int R, class Run> void check_outputs(Size s, int zsplit, Run run) {
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
  GuardedOutput out(n);
  run(in.data, out.data(), (s.nz + zsplit - 1) / zsplit);

  CHECK(out.guard_intact());
  const auto [bad, first_bad] = out.mismatches(reference, 2.0 * (6 * R + 1) * FLT_EPSILON);
  CAPTURE(first_bad);
  CHECK(bad == 0);
}

template <int R, int BX, int BY, int VX, int PF, int PAD = 1> void check_one(Size s, int zsplit) {
  CAPTURE(R);
  CAPTURE(BX);
  CAPTURE(BY);
  CAPTURE(VX);
  CAPTURE(PF);
  CAPTURE(PAD);
  check_outputs<R>(s, zsplit, [&](const float* in, float* out, int chunk) {
    const unsigned gx = static_cast<unsigned>((s.nx + BX * VX - 1) / (BX * VX));
    const unsigned gy = static_cast<unsigned>((s.ny + BY - 1) / BY);
    const unsigned gz = static_cast<unsigned>((s.nz + chunk - 1) / chunk);
    cuda_emulation::run_grid({BX, BY, 1}, {gx, gy, gz},
                             [&] { kernel<R, BX, BY, VX, PF, PAD>(in, out, s.nx, s.ny, s.nz, chunk); });
  });
}

// A staged kernel (a ring of planes in dynamic shared memory, BX x BY
// threads, tiles BX*VX x BY*KY, HALO columns each side) on the CPU, its
// copies landing at once and as late as its waits allow: `block(in, out,
// chunk)` runs one block. Checks the outputs and that no mbarrier wait hung.
template <int R, int BX, int BY, int VX, int KY, int PF, int ZU, int HALO, class Block>
void check_staged(Size s, int zsplit, Block block) {
  CAPTURE(R);
  CAPTURE(BX);
  CAPTURE(BY);
  CAPTURE(VX);
  CAPTURE(KY);
  CAPTURE(PF);
  CAPTURE(ZU);
  static_assert(static_cast<std::size_t>(R + 1 + PF) * (BY * KY + 2 * R) * (BX * VX + 2 * HALO) * sizeof(float) <=
                    cuda_emulation::kDynamicSharedBytes,
                "the ring fits the emulated shared memory");
  for (const auto landing : {cuda_emulation::Landing::eager, cuda_emulation::Landing::lazy}) {
    CAPTURE(landing == cuda_emulation::Landing::lazy);
    cuda_emulation::landing = landing;
    check_outputs<R>(s, zsplit, [&](const float* in, float* out, int chunk) {
      const unsigned gx = static_cast<unsigned>((s.nx + BX * VX - 1) / (BX * VX));
      const unsigned gy = static_cast<unsigned>((s.ny + BY * KY - 1) / (BY * KY));
      const unsigned gz = static_cast<unsigned>((s.nz + chunk - 1) / chunk);
      cuda_emulation::barrier_error = false;
      cuda_emulation::run_grid({BX, BY, 1}, {gx, gy, gz}, [&] {
        block(in, out, chunk);
        cuda_emulation::end_block();
      });
      CHECK_FALSE(cuda_emulation::barrier_error);
    });
  }
  cuda_emulation::landing = cuda_emulation::Landing::eager;
}

template <int R, int BX, int BY, int VX, int KY, int PF, int ZU, int COPY = 0> void check_ring(Size s, int zsplit) {
  CAPTURE(COPY);
  check_staged<R, BX, BY, VX, KY, PF, ZU, (R + 3) / 4 * 4>(s, zsplit, [&](const float* in, float* out, int chunk) {
    ring_kernel<R, BX, BY, VX, KY, PF, ZU, COPY>(in, out, s.nx, s.ny, s.nz, chunk);
  });
}

constexpr Size kOne{1, 1, 1}, kOdd{31, 17, 9}, kNonMultiple{67, 35, 20}, kAligned{72, 21, 13};

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

TEST_CASE("fdtd.cu on the CPU: fdtd_ring (lean cp.async ring, z chunks marching both ways), odd and aligned sizes") {
  // kAligned (nx % 4 == 0) runs the 16-byte path, the others the 4-byte path;
  // zsplit 2 and 3 have chunks marching down; ZU 9 and 3 leave partial unrolled bodies.
  for (const Size s : {kOne, kOdd, kNonMultiple, kAligned}) {
    for (int zsplit : {1, 2, 3}) {
      if (zsplit > s.nz) continue;
      check_ring<4, 32, 4, 4, 1, 2, 3>(s, zsplit);
      check_ring<4, 16, 4, 4, 2, 1, 9>(s, zsplit);
      check_ring<4, 32, 2, 2, 2, 3, 1>(s, zsplit);
    }
  }
  check_ring<4, 32, 4, 4, 1, 4, 9>(kAligned, 13); // one plane per chunk, every other one marching down
  check_ring<4, 32, 4, 1, 4, 2, 3>(kOdd, 4);      // float columns, 4 rows per thread
  check_ring<1, 32, 4, 4, 1, 2, 3>(kAligned, 2);  // radius 1: the x window narrower than the copy halo
  check_ring<2, 32, 4, 2, 2, 1, 5>(kNonMultiple, 3);
  check_ring<3, 32, 4, 4, 1, 3, 7>(kAligned, 2);
}

TEST_CASE("fdtd.cu on the CPU: fdtd_ring with bulk row copies (COPY 1), mbarrier phases over the ring") {
  // kAligned and kWide take the bulk path (nx % 4 == 0), the others COPY 1's 4-byte fallback.
  constexpr Size kWide{136, 19, 11};
  for (const Size s : {kOne, kOdd, kAligned, kWide}) {
    for (int zsplit : {1, 2, 3}) {
      if (zsplit > s.nz) continue;
      check_ring<4, 32, 4, 4, 1, 2, 3, 1>(s, zsplit);
      check_ring<4, 16, 4, 4, 2, 1, 9, 1>(s, zsplit);
    }
  }
  check_ring<4, 8, 26, 4, 1, 3, 9, 1>(kWide, 1); // 34 box rows: two rows for lanes 0 and 1 of warp 0
  check_ring<4, 32, 4, 4, 1, 5, 9, 1>(kAligned, 13); // one plane per chunk, more stages than planes
  check_ring<2, 32, 4, 2, 2, 1, 5, 1>(kWide, 3);
  check_ring<1, 32, 4, 4, 1, 2, 3, 1>(kAligned, 2);
}
