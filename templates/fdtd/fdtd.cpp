// The fdtd template's kernel description: templates/fdtd/fdtd.cu as data,
// with its __launch_bounds__ minimum as a parameter and its coefficients in
// constant memory.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/fdtd.hpp>
#include "embedded_sources.hpp"

#include "fdtd_geometry.hpp"
#include "geometry_environment.hpp"

#include <cfloat>
#include <string>

namespace memtune::templates {

using search::Axis;

namespace {
// Grid y is at most 65535 blocks of >= 4 rows; x and y indices are int in the kernel.
constexpr std::int64_t kMaxSide = 1 << 16;
constexpr std::int64_t kMaxRadius = 4;

// fdtd.cu's fdtd_reference: one thread per point, the star summed in double;
// a grid-stride loop over at most 2^20 blocks.
ReferenceKernel reference_kernel() {
  return {"fdtd_reference", {}, {search::parse_expr("256")},
          {search::parse_expr("min(ceil_div(nx * ny * nz, 256), 1048576)")}, 0};
}

} // namespace

search::Config fdtd_geometry_environment(const search::Config& config, const Problem& problem, const Target& target) {
  return geometry_environment(fdtd_description(), config, problem, target,
                              {{"scheme", static_cast<std::int64_t>(FdtdScheme::classic)},
                               {"ky", 1},
                               {"zu", 3},
                               {"copy", 0},
                               {"pad", 1},
                               {"min_warps", 0}});
}

namespace {

search::Config default_configuration(const Problem& problem, const Target&) {
  // 32x8 threads with float4 columns (a 128x8 tile), four z-chunks and one
  // plane of look-ahead: every load is a 16-byte coalesced access, 1024 blocks
  // at 512x512x256, and about 100 registers/thread fit two blocks per SM on
  // every GPU since Kepler.
  const std::int64_t nz = problem.at("nz");
  return {{"bx", 32},       {"by", 8},  {"vx", 4},  {"zsplit", nz >= 4 ? 4 : nz >= 2 ? 2 : 1},
          {"prefetch", 1},  {"pad", 1}, {"min_warps", 0},
          {"scheme", static_cast<std::int64_t>(FdtdScheme::classic)}, {"ky", 1}, {"zu", 3}, {"copy", 0},
          {"zfill", 0}};
}

KernelDescription describe() {
  // c_0..c_R: random, never zero, scaled to sum |c| = 1/6, so that
  // |c_0| + 6 sum |c_r| <= 1 and outputs stay in [-1, 1] (|in| <= 1).
  Fill coefficients;
  coefficients.lo = -1.0;
  coefficients.hi = 1.0;
  coefficients.sum_abs = 1.0 / 6.0;
  return KernelBuilder("fdtd")
      .summary("3D star stencil of radius R (default 4: 25 points), zero outside the volume: a 2D block marches "
               "along z with a register queue for the z neighbours and the xy plane plus halo in shared memory "
               "(classic), or a ring of planes filled by asynchronous copies (ring, sm_80+)")
      .source("fdtd.cu", embedded::fdtd_cu)
      .kernel_if("scheme == \"ring\"",
                 "fdtd_ring<{bx}, {by}, {vx}, {ky}, {prefetch}, {zu}, {min_blocks}, {ring_copy}>")
      .kernel("fdtd_kernel<{bx}, {by}, {vx}, {prefetch}, {min_blocks}, {pad}>")
      .define("MEMTUNE_RADIUS", "{radius}")
      .size("nx", 512, "volume points in x (the contiguous dimension)", 1, kMaxSide)
      .size("ny", 512, "volume points in y", 1, kMaxSide)
      .size("nz", 256, "volume points in z (the marching dimension)", 1, kMaxSide)
      .problem({"radius", 4, 1, kMaxRadius, "stencil radius R: 6R+1 points (4: 25 points)", false})
      .parameter(Axis::categorical("scheme", fdtd_scheme_labels(),
                                   "classic: each thread loads its column and a share of the halo into registers, "
                                   "the block stages each plane in shared memory (two buffers); ring: every plane's "
                                   "box comes by asynchronous copies (no registers) into a ring of R+1+prefetch "
                                   "stages in dynamic shared memory, ky rows per thread, the z loop unrolled zu "
                                   "times (sm_80+)"))
      .parameter(Axis::ordinal("bx", {16, 32, 64}, "threads per block in x (16: ring only)"))
      .parameter(Axis::ordinal("by", {4, 8, 16}, "threads per block in y"))
      .parameter(Axis::ordinal("vx", {1, 2, 4},
                               "consecutive x points per thread, moved as one vector (float, float2, float4)"))
      .parameter(Axis::ordinal("zsplit", {1, 2, 4, 8, 16},
                               "z-chunks per column: blocks per tile column, each marching nz/zsplit planes "
                               "(classic: at most 8; ring: 1, zfill sets its count)"))
      .parameter(Axis::ordinal("prefetch", {0, 1, 2, 3, 4},
                               "planes of look-ahead: classic (0, 1, 2, 4): a thread issues the loads of plane "
                               "z+R+prefetch (and the halo of z+prefetch) before computing plane z, 0 = load and "
                               "use in the same plane; ring (3, 4): planes copied ahead of the one the z queue "
                               "takes next"))
      .parameter(Axis::ordinal("pad", {0, 1},
                               "halo padding: 1 adds H floats to each shared row so the x halo's column stores (one "
                               "float per row, rows a pitch apart) fall in different banks; 0 = rows of exactly tile "
                               "+ 2H floats"))
      .parameter(Axis::ordinal("min_warps", {0, 16, 24, 32},
                               "warps per SM the kernel must fit: __launch_bounds__(threads, "
                               "min_warps*32/threads) caps registers at 65536/(min_warps*32); 0 = no minimum (the "
                               "compiler's choice)"))
      .parameter(Axis::ordinal("ky", {1, 2, 4}, "ring: consecutive y rows per thread (a tile of by*ky rows); classic: 1"))
      .parameter(Axis::ordinal("zu", {3, 9},
                               "ring: planes per unrolled z-loop body (the z queue shifts once per zu planes; at "
                               "most 2R+1); classic: 3 (unused)"))
      .parameter(Axis::categorical("copy", fdtd_copy_labels(),
                                   "ring: how a plane's box reaches shared memory: cp_async (every thread's 16-byte "
                                   "cp.async, sm_80+) or bulk (one cp.async.bulk per box row by the copy engine, "
                                   "sm_90+; sizes with nx % 4 != 0 fall back to 8-byte (nx even) or 4-byte cp.async); classic: "
                                   "cp_async (unused)"))
      // The best chunk count fills the SMs' block slots: tile columns x
      // chunks just under a multiple of the SMs. A fixed count does that at
      // one size only (5 chunks: 1.005x the best at 202x202x141 on an H200,
      // 1.45x at 234x234x156); a count per SM carries across sizes.
      .parameter(Axis::ordinal("zfill", {0, 1, 2, 3, 4, 6, 8, 12, 16},
                               "ring: z-chunks per tile column chosen for about zfill blocks per SM, "
                               "floor(zfill x SMs / tile columns) (at least 1, at most nz), whatever the size; "
                               "0: zsplit's count (the ring's: one chunk; classic: always 0)"))
      // fdtd.cu's arithmetic (FdtdGeometry reads it from here).
      .derived("threads", "bx * by")
      .derived("warps", "threads / 32")
      .derived("ring", "scheme == \"ring\"")
      .derived("tile_x", "bx * vx")
      .derived("tile_y", "by * ky")
      .derived("halo_x", "round_up(radius, vx)")        // H: halo columns each side, vector aligned
      .derived("pitch", "tile_x + halo_x * (pad + 2)")   // [floats] classic: a shared row, padded by H when pad
      .derived("rows", "tile_y + 2 * radius")            // shared rows of a plane: the tile and the y halo
      .derived("y_halo_vectors", "2 * radius * bx")      // classic: the y halo's vectors per plane
      .derived("halo_vectors", "y_halo_vectors + 2 * tile_y * (halo_x / vx)")
      .derived("halo_rounds", "ceil_div(halo_vectors, threads)")
      .derived("min_blocks", "max(1, min_warps / warps)") // __launch_bounds__'s minimum blocks per SM
      .derived("tile_columns", "ceil_div(nx, tile_x) * ceil_div(ny, tile_y)")
      .derived("chunks", "zfill == 0 ? zsplit : max(1, min(nz, zfill * sm_count / tile_columns))")
      .derived("chunk", "ceil_div(nz, chunks)")           // planes per block
      .derived("grid_x", "ceil_div(nx, tile_x)")
      .derived("grid_y", "ceil_div(ny, tile_y)")
      .derived("grid_z", "ceil_div(nz, chunk)")
      .derived("ring_halo", "round_up(radius, 4)")       // the ring's box: R halo columns rounded up to 4
      // fdtd_ring's COPY: 0 cp.async; bulk copies 1, or 2 with box rows 4
      // floats longer where the volume's rows are 16 bytes off a multiple of
      // 32 (nx % 8 == 4) and its planes are not (ny even), so that every box
      // row lands at its source's offset within 32 bytes (the ring's
      // placement, fdtd_ring.cuh). With ny odd half the planes would be
      // misplaced instead of half the rows: 300x301x300 measured the same
      // either way on an H200.
      .derived("ring_copy", "copy == \"bulk\" ? (nx % 8 == 4 && ny % 2 == 0 ? 2 : 1) : 0")
      .derived("ring_pitch", "tile_x + 2 * ring_halo + (ring_copy == 2 ? 4 : 0)") // [floats] the ring's box row
      // Registers per thread without a cap, fitted to NVRTC's counts for sm_90
      // (tests/templates/fdtd_test.cpp prints them): about 40 for indices and
      // addresses, the z queue and the x window (vx*(2R+4)), the halo's indices
      // and data (4*vx per halo round), and the loads in flight (2*vx per
      // prefetch slot for the column and each halo round).
      // The ring's registers: about 40 plus its z queue (2R+zu planes of ky*vx
      // floats); NVRTC gives 110-120 for the vx4 ky1 shapes, ~205 for vx4 ky2
      // and 128-180 for vx2 ky4.
      .derived("registers", "ring ? 40 + vx * ky * (2 * radius + zu) : 40 + vx * (2 * radius + 4) + vx * halo_rounds "
                            "* 4 + vx * prefetch * (halo_rounds + 1) * 2")
      .derived("static_smem", "2 * 4 * rows * pitch") // classic: two plane buffers
      // The ring: R+1+prefetch stages of boxes of `rows` rows (whole 32
      // bytes), and 32 bytes for the ring's placement (fdtd_ring.cuh).
      .derived("ring_smem", "(radius + 1 + prefetch) * round_up(rows * ring_pitch, 8) * 4 + 32")
      .derived("ring_block_smem", "ring_smem + 8 * (radius + 1 + prefetch)") // and its stages' mbarriers
      .constraint("threads <= min(512, max_threads_per_block)",
                  "at most 512 threads (and the device limit): a 1024-thread block leaves 64 registers per thread "
                  "and one block per SM; kept out to keep the space small")
      .constraint("bx <= by * 8", "blocks wider than 8 times their rows (64x4) are left out: 32x4 already shows the "
                                  "thin tile whose halo rows outnumber its own; keeps the space small")
      .constraint("tile_x <= 128", "tile rows above 128 floats (bx*vx) leave a 512x512 plane fewer tile columns than "
                                   "a large GPU has SMs; kept out to keep the space small")
      .constraint("zsplit <= nz", "a z-chunk needs at least one plane (zsplit <= nz)")
      // The ring's own space: the shapes, look-ahead and unrolling that came
      // within a few percent of the best on the H100 and the H200 when a
      // wider ring space was measured on both; the rest only cost compile time.
      .constraint("!ring || compute_capability >= 80", "the ring scheme needs sm_80 (cp.async)")
      .constraint("copy != \"bulk\" || compute_capability >= 90",
                  "bulk copies need sm_90 (cp.async.bulk, mbarrier transaction counts)")
      .constraint("ring || ky == 1 && zu == 3 && copy == \"cp_async\" && bx >= 32",
                  "ky, zu, copy and bx=16 belong to the ring scheme (classic: ky=1 zu=3 copy=cp_async)")
      .constraint("!ring || pad == 0 && prefetch >= 3 && threads >= 256 && vx >= 2 && tile_x >= 64 && "
                  "tile_y <= (ky == 4 ? 32 : 16)",
                  "the ring's space: pad=0 (its rows are never padded), prefetch 3 or 4, at least 256 threads, vx 2 "
                  "or 4, tiles of 64 or 128 floats by at most 16 rows (32 with ky 4)")
      // Four rows a thread halve the y neighbours' shared loads per point
      // against two (2R for 4 rows) and the box's halo rows per tile row: the
      // 64x32 and 128x32 float2 tiles (128-142 registers) measured 4-6 %
      // faster than every ky 1 and 2 shape at 512x512x256, 480^3,
      // 302x300x300, 301x300x300 and 375x376x376 on an H200, as fast at
      // 376^3, 0.7 % behind at 300^3 (docs/results.md). float4 at four rows
      // needs about 250 registers and measured 0.6-23 % behind them.
      .constraint("ky < 4 || vx == 2", "ky 4 goes with float2 (vx 2): float4 at four rows a thread needs about 250 "
                                       "registers")
      // Three 8-warp blocks an SM (min_warps 24, 80 registers): with 64x16
      // tiles, 0.6-5.5 % behind the best at 376^3, 480^3, 300^3 and
      // 200x328x160 on an H200 (docs/results.md). Only with prefetch 4: with
      // the bulk ring placed at its sources' offset, three blocks' best with
      // prefetch 3 measured 1.6-8.7 % behind the whole grid's best at 376^3,
      // 480^3, 200x328x160 and 512x512x256 and 0.4 % ahead at 300^3 (another
      // run: within run-to-run noise); the model puts them up to 18 % faster
      // than they measure.
      .constraint("!ring || min_warps <= 16 || min_warps == 24 && prefetch == 4",
                  "the ring's min_warps: 0, 16, or 24 (three 8-warp blocks an SM) with prefetch 4")
      // The ring's alternating march reads a chunk boundary's 2R planes twice
      // close in time (the second read from L2), so it takes as many chunks
      // as fill the SMs (zfill); the classic kernel re-reads them a chunk's
      // life apart, so it keeps at most 8.
      .constraint("ring || zsplit <= 8", "classic: at most 8 z-chunks per column (each re-reads 2R planes from DRAM)")
      .constraint("ring || zfill == 0", "zfill belongs to the ring scheme (classic: 0)")
      .constraint("!ring || zsplit == 1", "the ring's z-chunks come from zfill, a count per SM (zsplit 1)")
      // One chunk is one chunk whatever zfill asked for: the duplicates are
      // left out, and another size's zfill that gives one chunk here is
      // taken as zfill 0 (the launcher's lookup, search::Space::same_kernel).
      .constraint("zfill == 0 || chunks > 1", "a zfill that gives one z-chunk at this size is zfill 0", {{"zfill", "0"}})
      .constraint("ring || prefetch != 3", "classic look-ahead is 0, 1, 2 or 4 planes")
      .constraint("zu <= 2 * radius + 1", "the z loop unrolls at most 2R+1 planes (the queue's length)")
      .constraint("!ring || nx * ny < 1073741824", "the ring addresses a plane with 32-bit byte offsets (nx*ny*4 < 4 GiB)")
      .constraint("!ring || ring_block_smem <= max_shared_memory_per_block_optin",
                  "the ring of planes exceeds the shared memory per block (opt-in limit)")
      // __launch_bounds__ caps registers for min_blocks blocks an SM; where the
      // ring's shared memory holds fewer (the driver reserves 1 KiB a block
      // on sm_80+), the cap buys no occupancy and only spills: such
      // configurations measured 1.003-1.50x the same one without the cap on
      // the H100 and the H200, never faster (docs/results.md).
      .constraint("!ring || shared_memory_per_sm == 0 || "
                  "min_blocks * (ring_block_smem + 1024) <= shared_memory_per_sm",
                  "min_warps asks for more ring blocks per SM than shared memory holds: the register cap would only "
                  "spill")
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
      .constraint("ring || static_smem <= min(48K, max_shared_memory_per_block > 0 ? max_shared_memory_per_block : 48K)",
                  "two staged planes exceed the static shared memory per block")
      .block("bx", "by")
      .grid("grid_x", "grid_y", "grid_z")
      // The ring's stages; above 48 KiB the launch opts in (cuFuncSetAttribute).
      .shared_memory("ring ? ring_smem : 0")
      .buffer("in", ElementType::f32, "nx * ny * nz", BufferRole::in)
      .buffer("out", ElementType::f32, "nx * ny * nz", BufferRole::out)
      .scalar("nx", ElementType::i32, "nx")
      .scalar("ny", ElementType::i32, "ny")
      .scalar("nz", ElementType::i32, "nz")
      .scalar("chunk", ElementType::i32, "chunk")
      .constant("memtune_fdtd_coeffs", ElementType::f32, "radius + 1", coefficients)
      // The volume read once and written once, plus the R+1 coefficients.
      .bytes_moved("2 * nx * ny * nz * 4 + (radius + 1) * 4")
      // 6R+1 float terms summed in any order: each adds at most one rounding
      // of a running sum bounded by |c_0| + 6 sum |c_r| <= 1. Twice that per term.
      .verify_with_kernel(reference_kernel(), {2.0 * FLT_EPSILON, 0.0}, "6 * radius + 1")
      .access_pattern(fdtd_access_pattern)
      .explain(fdtd_note)
      .default_config(default_configuration)
      .build();
}
} // namespace

const std::vector<std::string>& fdtd_scheme_labels() {
  static const std::vector<std::string> labels{"classic", "ring"};
  return labels;
}
const std::vector<std::string>& fdtd_copy_labels() {
  static const std::vector<std::string> labels{"cp_async", "bulk"};
  return labels;
}

const KernelDescription& fdtd_description() {
  static const KernelDescription description = describe();
  return description;
}

} // namespace memtune::templates
