// The fdtd template's kernel description: templates/fdtd/fdtd.cu as data,
// with its __launch_bounds__ minimum as a parameter and its coefficients in
// constant memory.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/fdtd.hpp>
#include "embedded_sources.hpp"

#include "fdtd_geometry.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace memtune::templates {

using search::Axis;

namespace {
// Grid y is at most 65535 blocks of >= 4 rows; x and y indices are int in the kernel.
constexpr std::int64_t kMaxSide = 1 << 16;
constexpr std::int64_t kMaxRadius = 4;

// c_0..c_R, random, never zero, normalised so that outputs stay in [-1, 1].
void fill_coefficients(const FillRequest& request, std::span<std::byte> out) {
  const std::vector<float> c =
      random_fdtd_coefficients(static_cast<int>(request.problem.at("radius")), request.seed);
  if (out.size() != c.size() * sizeof(float))
    throw std::logic_error("fdtd: the coefficient symbol holds " + std::to_string(out.size()) + " bytes, not " +
                           std::to_string(c.size()) + " floats");
  std::memcpy(out.data(), c.data(), out.size());
}

std::vector<ExpectedOutput> expected_outputs(const ReferenceRequest& request) {
  const Problem& p = request.problem;
  return {{"out", 0,
           fdtd_reference(request.input_as<float>("in"), p.at("nx"), p.at("ny"), p.at("nz"),
                          request.input_as<float>("memtune_fdtd_coeffs")),
           {fdtd_tolerance(static_cast<int>(p.at("radius"))), 0.0}}};
}

search::Config default_configuration(const Problem& problem, const Target&) {
  // 32x8 threads with float4 columns (a 128x8 tile), four z-chunks and one
  // plane of look-ahead: every load is a 16-byte coalesced access, 1024 blocks
  // at 512x512x256, and about 100 registers/thread fit two blocks per SM on
  // every GPU since Kepler.
  const std::int64_t nz = problem.at("nz");
  return {{"bx", 32}, {"by", 8}, {"vx", 4}, {"zsplit", nz >= 4 ? 4 : nz >= 2 ? 2 : 1},
          {"prefetch", 1}, {"pad", 1}, {"min_warps", 0}};
}

KernelDescription describe() {
  Fill coefficients;
  coefficients.kind = Fill::Kind::custom;
  coefficients.custom = fill_coefficients;
  return KernelBuilder("fdtd")
      .summary("3D star stencil of radius R (default 4: 25 points), zero outside the volume: a 2D block marches "
               "along z with a register queue for the z neighbours and the xy plane plus halo in shared memory")
      .source("fdtd.cu", embedded::fdtd_cu)
      .kernel("fdtd_kernel<{bx}, {by}, {vx}, {prefetch}, {min_blocks}, {pad}>")
      .define("MEMTUNE_RADIUS", "{radius}")
      .size("nx", 512, "volume points in x (the contiguous dimension)", 1, kMaxSide)
      .size("ny", 512, "volume points in y", 1, kMaxSide)
      .size("nz", 256, "volume points in z (the marching dimension)", 1, kMaxSide)
      .problem({"radius", 4, 1, kMaxRadius, "stencil radius R: 6R+1 points (4: 25 points)", false})
      .parameter(Axis::ordinal("bx", {32, 64}, "threads per block in x"))
      .parameter(Axis::ordinal("by", {4, 8, 16}, "threads per block in y (tile rows)"))
      .parameter(Axis::ordinal("vx", {1, 2, 4},
                               "consecutive x points per thread, moved as one vector (float, float2, float4)"))
      .parameter(Axis::ordinal("zsplit", {1, 2, 4, 8},
                               "z-chunks per column: blocks per tile column, each marching nz/zsplit planes"))
      .parameter(Axis::ordinal("prefetch", {0, 1, 2, 4},
                               "planes of look-ahead: a thread issues the loads of plane z+R+prefetch (and the halo "
                               "of z+prefetch) before computing plane z; 0 = load and use in the same plane"))
      .parameter(Axis::ordinal("pad", {0, 1},
                               "halo padding: 1 adds H floats to each shared row so the x halo's column stores (one "
                               "float per row, rows a pitch apart) fall in different banks; 0 = rows of exactly tile "
                               "+ 2H floats"))
      .parameter(Axis::ordinal("min_warps", {0, 16, 24, 32},
                               "warps per SM the kernel must fit: __launch_bounds__(threads, "
                               "min_warps*32/threads) caps registers at 65536/(min_warps*32); 0 = no minimum (the "
                               "compiler's choice)"))
      // fdtd.cu's arithmetic (FdtdGeometry).
      .derived("threads", "bx * by")
      .derived("warps", "threads / 32")
      .derived("tile_x", "bx * vx")
      .derived("halo_x", "round_up(radius, vx)") // H: halo columns each side, vector aligned
      .derived("halo_vectors", "2 * radius * bx + 2 * by * (halo_x / vx)")
      .derived("halo_rounds", "ceil_div(halo_vectors, threads)")
      .derived("min_blocks", "max(1, min_warps / warps)") // __launch_bounds__'s minimum blocks per SM
      .derived("chunk", "ceil_div(nz, zsplit)")           // planes per block
      // Registers per thread without a cap, fitted to NVRTC's counts for sm_90
      // (tests/templates/fdtd_test.cpp prints them): about 40 for indices and
      // addresses, the z queue and the x window (vx*(2R+4)), the halo's indices
      // and data (4*vx per halo round), and the loads in flight (2*vx per
      // prefetch slot for the column and each halo round).
      .derived("registers", "40 + vx * (2 * radius + 4) + vx * halo_rounds * 4 + vx * prefetch * (halo_rounds + 1) * 2")
      .derived("static_smem", "2 * 4 * (by + 2 * radius) * (tile_x + halo_x * (pad + 2))") // two plane buffers
      .constraint("threads <= min(512, max_threads_per_block)",
                  "at most 512 threads (and the device limit): a 1024-thread block leaves 64 registers per thread "
                  "and one block per SM; kept out to keep the space small")
      .constraint("bx <= by * 8", "blocks wider than 8 times their rows (64x4) are left out: 32x4 already shows the "
                                  "thin tile whose halo rows outnumber its own; keeps the space small")
      .constraint("tile_x <= 128", "tile rows above 128 floats (bx*vx) leave a 512x512 plane fewer tile columns than "
                                   "a large GPU has SMs; kept out to keep the space small")
      .constraint("zsplit <= nz", "a z-chunk needs at least one plane (zsplit <= nz)")
      .constraint("min_warps % warps == 0", "min_warps must be a whole number of blocks")
      // One block of min_warps warps asks for nothing the block does not already have.
      .constraint("min_warps == 0 || min_warps >= 2 * warps", "min_warps of one block is the same kernel as "
                                                              "min_warps=0")
      .constraint("min_warps <= (max_warps_per_sm > 0 ? max_warps_per_sm : 64)", "more warps than an SM holds")
      // Under a cap the compiler schedules tighter; below about 60% of the
      // estimate it spills hundreds of bytes a thread (seen at 64 registers
      // with float2 and two planes of look-ahead), so such caps are left out.
      // Milder spills stay in the space: that trade against occupancy is what
      // min_warps explores.
      .constraint("5 * (registers_per_sm > 0 ? registers_per_sm : 65536) >= registers * threads * min_blocks * 3",
                  "the register cap 65536/(min_warps*32) is below 60% of what the z queue and the loads in flight "
                  "need (would spill hundreds of bytes a thread)")
      // __shared__ arrays: no opt-in for static shared memory.
      .constraint("static_smem <= min(48K, max_shared_memory_per_block > 0 ? max_shared_memory_per_block : 48K)",
                  "two staged planes exceed the static shared memory per block")
      .block("bx", "by")
      .grid("ceil_div(nx, tile_x)", "ceil_div(ny, by)", "ceil_div(nz, chunk)")
      .buffer("in", ElementType::f32, "nx * ny * nz", BufferRole::in)
      .buffer("out", ElementType::f32, "nx * ny * nz", BufferRole::out)
      .scalar("nx", ElementType::i32, "nx")
      .scalar("ny", ElementType::i32, "ny")
      .scalar("nz", ElementType::i32, "nz")
      .scalar("chunk", ElementType::i32, "chunk")
      .constant("memtune_fdtd_coeffs", ElementType::f32, "radius + 1", coefficients)
      // The volume read once and written once, plus the R+1 coefficients.
      .bytes_moved("2 * nx * ny * nz * 4 + (radius + 1) * 4")
      .verify_with(expected_outputs)
      .access_pattern(fdtd_access_pattern)
      .explain(fdtd_shape_note)
      .default_config(default_configuration)
      .build();
}
} // namespace

const KernelDescription& fdtd_description() {
  static const KernelDescription description = describe();
  return description;
}

} // namespace memtune::templates
