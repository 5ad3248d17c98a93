// The fdtd device source itself, run on the CPU: templates/fdtd/fdtd.cu is
// compiled as host C++ with the few CUDA built-ins it uses emulated (one
// std::thread per CUDA thread, std::barrier for __syncthreads, the kernel's
// __shared__ array as a function-local static reused block after block). No
// GPU here, so this is what checks the kernel's queue, prefetch slots, halo
// indexing, z-chunks and guards: every output matches the reference on odd
// sizes, and nothing outside the output is written.
#include <memtune/description/random_data.hpp>
#include <memtune/templates/fdtd.hpp>

#include <set>

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
// input_shift: floats between a 256-byte boundary and the input; 4 puts it 16
// bytes past a 32-byte boundary (the ring's bulk copies place the ring by it).
template <int R, class Run> void check_outputs(Size s, int zsplit, Run run, int input_shift = 0) {
  CAPTURE(input_shift);
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

  Buffer in(n + static_cast<std::size_t>(input_shift));
  std::copy(input.begin(), input.end(), in.data + input_shift);
  GuardedOutput out(n);
  run(in.data + input_shift, out.data(), (s.nz + zsplit - 1) / zsplit);

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
// threads, tiles BX*VX x BY*KY, box rows of PITCH floats) on the CPU, its
// copies landing at once and as late as its waits allow: `block(in, out,
// chunk)` runs one block. Checks the outputs, that no mbarrier wait hung, that
// no access was misaligned, and with `placed` that every bulk copy landed at
// its source's offset within 32 bytes.
template <int R, int BX, int BY, int VX, int KY, int PF, int ZU, int PITCH, class Block>
void check_staged(Size s, int zsplit, Block block, bool placed, int input_shift = 0) {
  CAPTURE(R);
  CAPTURE(BX);
  CAPTURE(BY);
  CAPTURE(VX);
  CAPTURE(KY);
  CAPTURE(PF);
  CAPTURE(ZU);
  static_assert(static_cast<std::size_t>(R + 1 + PF) * (BY * KY + 2 * R) * PITCH * sizeof(float) <=
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
      cuda_emulation::alignment_error = false;
      cuda_emulation::misplaced_bulk_copies = 0;
      cuda_emulation::run_grid({BX, BY, 1}, {gx, gy, gz}, [&] {
        block(in, out, chunk);
        cuda_emulation::end_block();
      });
      CHECK_FALSE(cuda_emulation::barrier_error);
      CHECK_FALSE(cuda_emulation::alignment_error);
      if (placed) CHECK(cuda_emulation::misplaced_bulk_copies == 0);
    }, input_shift);
  }
  cuda_emulation::landing = cuda_emulation::Landing::eager;
}

// The ring's bulk copies land every row at its source's offset within 32
// bytes where the box rows' pitch and the volume's rows agree mod 32 bytes:
// COPY 1 for nx % 8 == 0, COPY 2 (rows 4 floats longer) for nx % 8 == 4
// with ny even (with ny odd every other plane starts 16 bytes further on).
template <int R, int BX, int BY, int VX, int KY, int PF, int ZU, int COPY = 0>
void check_ring(Size s, int zsplit, int input_shift = 0) {
  CAPTURE(COPY);
  constexpr int pitch = BX * VX + 2 * ((R + 3) / 4 * 4) + (COPY == 2 ? 4 : 0);
  const bool placed = COPY == 1 ? s.nx % 8 == 0 : COPY == 2 ? s.nx % 8 == 4 && s.ny % 2 == 0 : true;
  check_staged<R, BX, BY, VX, KY, PF, ZU, pitch>(
      s, zsplit,
      [&](const float* in, float* out, int chunk) {
        ring_kernel<R, BX, BY, VX, KY, PF, ZU, COPY>(in, out, s.nx, s.ny, s.nz, chunk);
      },
      placed, input_shift);
}

constexpr Size kOne{1, 1, 1}, kOdd{31, 17, 9}, kNonMultiple{67, 35, 20}, kAligned{72, 21, 13};
constexpr Size kEven{70, 19, 11}; // nx % 4 == 2: fdtd_ring's 8-byte copies and float2 stores

// The model's view of a configuration (fdtd_access.cpp, fdtd_ring_access.cpp:
// the block in the middle of the grid, one plane of its chunk standing for
// each) against that block run alone: the outputs its store instructions name
// are the ones the block writes in that plane, and it writes as many planes
// as they repeat. Rows of whole vectors (nx % 4 == 0): the model names a
// vector by its first float. `run(in, out, chunk)` runs the kernel once.
template <int BX, int BY, int VX, int KY, class Run>
void check_store_addresses(Size s, const memtune::search::Config& config, Run run) {
  CAPTURE(s.nx);
  CAPTURE(s.ny);
  CAPTURE(s.nz);
  CAPTURE(BX);
  CAPTURE(BY);
  CAPTURE(VX);
  CAPTURE(KY);
  CAPTURE(config.at("zsplit"));
  REQUIRE(s.nx % 4 == 0);
  const std::size_t n = static_cast<std::size_t>(s.nx) * s.ny * s.nz;
  Buffer in(n);
  std::fill(in.data, in.data + n, 1.0F);
  std::vector<float> out(n, std::nanf(""));
  const int zsplit = static_cast<int>(config.at("zsplit")), chunk = (s.nz + zsplit - 1) / zsplit;
  const unsigned gx = static_cast<unsigned>((s.nx + BX * VX - 1) / (BX * VX));
  const unsigned gy = static_cast<unsigned>((s.ny + BY * KY - 1) / (BY * KY));
  const unsigned gz = static_cast<unsigned>((s.nz + chunk - 1) / chunk);
  // The block the model replays (FdtdGeometry::sample_x0): the middle one, rounded down.
  cuda_emulation::run_blocks({BX, BY, 1}, {gx, gy, gz}, {{(gx - 1) / 2, (gy - 1) / 2, (gz - 1) / 2}}, [&] {
    run(in.data, out.data(), chunk);
    cuda_emulation::end_block();
  });
  const std::int64_t plane = static_cast<std::int64_t>(s.nx) * s.ny;
  std::set<std::int64_t> planes, written_in_first;
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isnan(out[i])) planes.insert(static_cast<std::int64_t>(i) / plane);
  REQUIRE_FALSE(planes.empty());
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isnan(out[i]) && static_cast<std::int64_t>(i) / plane == *planes.begin())
      written_in_first.insert(static_cast<std::int64_t>(i));

  const memtune::Problem problem{{"nx", s.nx}, {"ny", s.ny}, {"nz", s.nz}, {"radius", 4}};
  const memtune::AccessPattern a =
      memtune::templates::fdtd_description().hooks.access_pattern(config, problem, memtune::Target{});
  std::set<std::int64_t> named;
  std::int64_t repeat = -1;
  for (const memtune::GlobalInstruction& g : a.global) {
    if (g.kind != memtune::model::AccessKind::store) continue;
    CHECK((repeat < 0 || repeat == g.repeat));
    repeat = g.repeat;
    for (int warp = 0; warp < (BX * BY + 31) / 32; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        if (const auto address = g.address(warp, lane, 0)) {
          const std::int64_t first = static_cast<std::int64_t>(*address / 4);
          for (std::int64_t e = 0; e < VX && first % s.nx + e < s.nx; ++e) named.insert(first + e);
        }
  }
  CHECK(named == written_in_first);
  CHECK(repeat == static_cast<std::int64_t>(planes.size()));
}

memtune::search::Config fdtd_config(int scheme, int bx, int by, int vx, int ky, int prefetch, int zu, int zsplit) {
  return {{"scheme", scheme}, {"bx", bx},           {"by", by},  {"vx", vx}, {"ky", ky},     {"prefetch", prefetch},
          {"zu", zu},         {"zsplit", zsplit},   {"min_warps", 0}, {"pad", scheme == 1 ? 0 : 1}, {"copy", 0},
          {"zfill", 0}};
}

} // namespace

TEST_CASE("fdtd.cu on the CPU: the model's output stores are those the middle block writes (classic and ring)") {
  constexpr Size kWide{136, 19, 11}, kLarger{264, 37, 23};
  for (const Size s : {kAligned, kWide, kLarger}) {
    for (int zsplit : {1, 3}) {
      check_store_addresses<32, 4, 4, 1>(s, fdtd_config(0, 32, 4, 4, 1, 1, 3, zsplit), [&](const float* in, float* out, int chunk) {
        kernel<4, 32, 4, 4, 1, 1>(in, out, s.nx, s.ny, s.nz, chunk);
      });
      check_store_addresses<64, 4, 2, 1>(s, fdtd_config(0, 64, 4, 2, 1, 2, 3, zsplit), [&](const float* in, float* out, int chunk) {
        kernel<4, 64, 4, 2, 2, 1>(in, out, s.nx, s.ny, s.nz, chunk);
      });
      check_store_addresses<32, 4, 4, 1>(s, fdtd_config(1, 32, 4, 4, 1, 2, 3, zsplit), [&](const float* in, float* out, int chunk) {
        ring_kernel<4, 32, 4, 4, 1, 2, 3, 0>(in, out, s.nx, s.ny, s.nz, chunk);
      });
      check_store_addresses<16, 4, 4, 2>(s, fdtd_config(1, 16, 4, 4, 2, 1, 9, zsplit), [&](const float* in, float* out, int chunk) {
        ring_kernel<4, 16, 4, 4, 2, 1, 9, 0>(in, out, s.nx, s.ny, s.nz, chunk);
      });
    }
  }
}

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
  // kAligned (nx % 4 == 0) runs the 16-byte path, kEven the 8-byte one, the
  // others the 4-byte path; zsplit 2 and 3 have chunks marching down; ZU 9
  // and 3 leave partial unrolled bodies.
  for (const Size s : {kOne, kOdd, kNonMultiple, kAligned, kEven}) {
    for (int zsplit : {1, 2, 3}) {
      if (zsplit > s.nz) continue;
      check_ring<4, 32, 4, 4, 1, 2, 3>(s, zsplit);
      check_ring<4, 16, 4, 4, 2, 1, 9>(s, zsplit);
      check_ring<4, 32, 2, 2, 2, 3, 1>(s, zsplit);
    }
  }
  check_ring<4, 32, 4, 4, 1, 4, 9>(kAligned, 13); // one plane per chunk, every other one marching down
  check_ring<4, 32, 4, 1, 4, 2, 3>(kOdd, 4);      // float columns, 4 rows per thread
  check_ring<4, 32, 4, 1, 4, 2, 3>(kEven, 2);     // float columns, 8-byte copies
  check_ring<4, 8, 26, 4, 1, 3, 9>(kNonMultiple, 2); // 6.5 warps, 4-byte copies
  check_ring<1, 32, 4, 4, 1, 2, 3>(kAligned, 2);  // radius 1: the x window narrower than the copy halo
  check_ring<2, 32, 4, 2, 2, 1, 5>(kNonMultiple, 3);
  check_ring<3, 32, 4, 4, 1, 3, 7>(kAligned, 2);
}

TEST_CASE("fdtd.cu on the CPU: fdtd_ring with bulk row copies (COPY 1), mbarrier phases over the ring") {
  // kAligned and kWide take the bulk path (nx % 4 == 0), the others COPY 1's 8-byte (kEven) or 4-byte fallback.
  // Both input placements: the ring 16 bytes past a 32-byte boundary and on one.
  constexpr Size kWide{136, 19, 11};
  for (const int shift : {0, 4}) {
    for (const Size s : {kOne, kOdd, kAligned, kWide, kEven}) {
      for (int zsplit : {1, 2, 3}) {
        if (zsplit > s.nz) continue;
        check_ring<4, 32, 4, 4, 1, 2, 3, 1>(s, zsplit, shift);
        check_ring<4, 16, 4, 4, 2, 1, 9, 1>(s, zsplit, shift);
      }
    }
  }
  for (const Size s : {kOdd, kEven, kWide}) // four rows a thread with float2 (the space's ky 4): 40 box rows
    check_ring<4, 32, 8, 2, 4, 3, 9, 1>(s, 2, 4);
  check_ring<4, 8, 26, 4, 1, 3, 9, 1>(kWide, 1); // 34 box rows: two rows for lanes 0 and 1 of warp 0
  check_ring<4, 32, 4, 4, 1, 5, 9, 1>(kAligned, 13); // one plane per chunk, more stages than planes
  check_ring<2, 32, 4, 2, 2, 1, 5, 1>(kWide, 3);
  check_ring<1, 32, 4, 4, 1, 2, 3, 1>(kAligned, 2);
}

TEST_CASE("fdtd.cu on the CPU: fdtd_ring with bulk row copies and longer box rows (COPY 2) for nx % 8 == 4") {
  // Rows of nx % 8 == 4 floats alternate between two offsets within 32
  // bytes, and so do COPY 2's box rows: every copy lands placed (ny even),
  // for both input placements, odd radii (whose first box row's parity
  // follows the block's y) and blocks of one or several y tiles. kOdd takes
  // the 4-byte fallback; kHalfOddPlanes's planes alternate too.
  constexpr Size kHalf{76, 22, 13}, kHalfWide{132, 20, 11}, kHalfOddPlanes{76, 21, 5};
  for (const int shift : {0, 4}) {
    for (const Size s : {kOdd, kHalf, kHalfWide, kHalfOddPlanes}) {
      for (int zsplit : {1, 2}) {
        check_ring<4, 32, 4, 4, 1, 2, 3, 2>(s, zsplit, shift);
        check_ring<4, 16, 4, 4, 2, 1, 9, 2>(s, zsplit, shift);
      }
    }
    check_ring<1, 32, 4, 4, 1, 2, 3, 2>(kHalf, 2, shift);
    check_ring<3, 16, 3, 4, 1, 3, 7, 2>(kHalfWide, 1, shift);
    check_ring<3, 32, 4, 2, 2, 1, 5, 2>(kHalf, 3, shift);
  }
}

TEST_CASE("fdtd.cu on the CPU: the reference kernel, radius 1 and 4, over fewer blocks than points") {
  for (const Size s : {Size{13, 7, 6}, Size{5, 9, 11}}) {
    check_outputs<4>(s, 1, [&](const float* in, float* out, int chunk) {
      cuda_emulation::run_grid({256, 1, 1}, {2, 1, 1}, [&] { radius4::fdtd_reference(in, out, s.nx, s.ny, s.nz, chunk); });
    });
    check_outputs<1>(s, 1, [&](const float* in, float* out, int chunk) {
      cuda_emulation::run_grid({256, 1, 1}, {1, 1, 1}, [&] { radius1::fdtd_reference(in, out, s.nx, s.ny, s.nz, chunk); });
    });
  }
}
