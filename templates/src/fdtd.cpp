#include <memtune/templates/fdtd.hpp>
#include "embedded_sources.hpp"

#include "fdtd/fdtd_geometry.hpp"
#include "fdtd_workload.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

namespace memtune::templates {

using search::Axis;
using search::axis;
using search::Expr;

namespace {
// Grid y is at most 65535 blocks of >= 4 rows; x and y indices are int in the kernel.
constexpr std::int64_t kMaxSide = 1 << 16;
constexpr std::int64_t kMaxRadius = 4;
constexpr std::size_t kStaticSmemLimit = 48 * 1024; // __shared__ arrays (no opt-in for static memory)
} // namespace

std::string FdtdTemplate::description() const {
  return "3D star stencil of radius R (default 4: 25 points), zero outside the volume: a 2D block marches along z "
         "with a register queue for the z neighbours and the xy plane plus halo in shared memory";
}

std::vector<ProblemParameter> FdtdTemplate::problem_parameters() const {
  return {{"nx", 512, 1, kMaxSide, "volume points in x (the contiguous dimension)", true},
          {"ny", 512, 1, kMaxSide, "volume points in y", true},
          {"nz", 256, 1, kMaxSide, "volume points in z (the marching dimension)", true},
          {"radius", 4, 1, kMaxRadius, "stencil radius R: 6R+1 points (4: 25 points)", false}};
}

const std::string& FdtdTemplate::source() const {
  static const std::string source(embedded::fdtd_cu);
  return source;
}

search::Space FdtdTemplate::space(const Problem& problem, const Target& target) const {
  const std::int64_t R = problem.at("radius");
  const std::int64_t nz = problem.at("nz");
  search::Space s;
  s.add(Axis::ordinal("bx", {32, 64}, "threads per block in x"));
  s.add(Axis::ordinal("by", {4, 8, 16}, "threads per block in y (tile rows)"));
  s.add(Axis::ordinal("vx", {1, 2, 4}, "consecutive x points per thread, moved as one vector (float, float2, float4)"));
  s.add(Axis::ordinal("zsplit", {1, 2, 4, 8}, "z-chunks per column: blocks per tile column, each marching nz/zsplit planes"));
  s.add(Axis::ordinal("prefetch", {0, 1, 2, 4},
                      "planes of look-ahead: a thread issues the loads of plane z+R+prefetch (and the halo of "
                      "z+prefetch) before computing plane z; 0 = load and use in the same plane"));
  s.add(Axis::ordinal("pad", {0, 1},
                      "halo padding: 1 adds H floats to each shared row so the x halo's column stores (one float "
                      "per row, rows a pitch apart) fall in different banks; 0 = rows of exactly tile + 2H floats"));
  s.add(Axis::ordinal("min_warps", {0, 16, 24, 32},
                      "warps per SM the kernel must fit: __launch_bounds__(threads, min_warps*32/threads) caps "
                      "registers at 65536/(min_warps*32); 0 = no minimum (the compiler's choice)"));

  const Expr threads = axis("bx") * axis("by");
  const Expr vx = axis("vx");
  const Expr tile_x = axis("bx") * vx;
  const Expr halo_x = (Expr(R) + vx - 1) / vx * vx;
  const Expr halo_vectors = Expr(2 * R) * axis("bx") + Expr(2) * axis("by") * (halo_x / vx);
  const Expr halo_rounds = (halo_vectors + threads - 1) / threads;
  const Expr warps = threads / 32;
  const Expr min_blocks = max(Expr(1), axis("min_warps") / warps);

  s.require((threads <= std::min<std::int64_t>(512, target.max_threads_per_block))
                .because("at most 512 threads (and the device limit): a 1024-thread block leaves 64 registers per "
                         "thread and one block per SM; kept out to keep the space small"));
  s.require((axis("bx") <= axis("by") * 8)
                .because("blocks wider than 8 times their rows (64x4) are left out: 32x4 already shows the thin "
                         "tile whose halo rows outnumber its own; keeps the space small"));
  s.require((tile_x <= 128).because("tile rows above 128 floats (bx*vx) leave a 512x512 plane fewer tile columns "
                                    "than a large GPU has SMs; kept out to keep the space small"));
  s.require((axis("zsplit") <= nz).because("a z-chunk needs at least one plane (zsplit <= nz)"));
  s.require((axis("min_warps") % warps == 0).because("min_warps must be a whole number of blocks"));
  // One block of min_warps warps asks for nothing the block does not already have.
  s.require((axis("min_warps") * (axis("min_warps") - warps * 2) >= 0)
                .because("min_warps of one block is the same kernel as min_warps=0"));
  const std::int64_t warps_per_sm = target.max_warps_per_sm > 0 ? target.max_warps_per_sm : 64;
  s.require((axis("min_warps") <= warps_per_sm).because("more warps than an SM holds"));
  // Registers per thread without a cap, fitted to NVRTC's counts for sm_90
  // (tests/templates/fdtd_test.cpp prints them): about 40 for indices and
  // addresses, the z queue and the x window (vx*(2R+4)), the halo's indices
  // and data (4*vx per halo round), and the loads in flight (2*vx per prefetch
  // slot for the column and each halo round). Under a cap the compiler
  // schedules tighter; below about 60% of this estimate it spills hundreds of
  // bytes a thread (seen at 64 registers with float2 and two planes of
  // look-ahead), so such caps are left out. Milder spills stay in the space:
  // that trade against occupancy is what min_warps explores.
  const std::int64_t regs_per_sm = target.regs_per_sm > 0 ? target.regs_per_sm : 65536;
  const Expr regs = Expr(40) + vx * Expr(2 * R + 4) + vx * halo_rounds * 4 +
                    vx * axis("prefetch") * (halo_rounds + 1) * 2;
  s.require((Expr(5 * regs_per_sm) >= regs * threads * min_blocks * 3)
                .because("the register cap 65536/(min_warps*32) is below 60% of what the z queue and the loads in "
                         "flight need (would spill hundreds of bytes a thread)"));
  const Expr smem = Expr(2 * 4) * (axis("by") + 2 * R) * (tile_x + halo_x * (axis("pad") + 2));
  const auto smem_limit = static_cast<std::int64_t>(
      std::min(kStaticSmemLimit, target.smem_per_block > 0 ? target.smem_per_block : kStaticSmemLimit));
  s.require((smem <= smem_limit).because("two staged planes exceed the static shared memory per block"));
  return s;
}

LaunchSpec FdtdTemplate::launch(const search::Config& c, const Problem& problem) const {
  const FdtdGeometry g(c, problem);
  LaunchSpec l;
  l.name_expression = "fdtd_kernel<" + std::to_string(g.bx) + ", " + std::to_string(g.by) + ", " + std::to_string(g.vx) +
                      ", " + std::to_string(g.prefetch) + ", " + std::to_string(g.min_blocks) + ", " +
                      std::to_string(g.pad) + ">";
  l.options = {"-DMEMTUNE_RADIUS=" + std::to_string(g.radius)};
  l.block = {static_cast<unsigned>(g.bx), static_cast<unsigned>(g.by), 1};
  l.grid = {static_cast<unsigned>(g.grid_x), static_cast<unsigned>(g.grid_y), static_cast<unsigned>(g.grid_z)};
  l.dynamic_smem_bytes = 0; // two static plane buffers
  return l;
}

search::Config FdtdTemplate::default_config(const Problem& problem, const Target& target) const {
  return fdtd_description().default_config(problem, target);
}

AccessPattern FdtdTemplate::access_pattern(const search::Config& c, const Problem& problem,
                                           const Target& target) const {
  return fdtd_access_pattern(c, problem, target);
}

std::uint64_t FdtdTemplate::bytes_moved(const Problem& problem) const {
  const auto points = static_cast<std::uint64_t>(problem.at("nx")) * static_cast<std::uint64_t>(problem.at("ny")) *
                      static_cast<std::uint64_t>(problem.at("nz"));
  // The volume read once and written once, plus the R+1 coefficients.
  return 2 * points * sizeof(float) + static_cast<std::uint64_t>(problem.at("radius") + 1) * sizeof(float);
}

std::unique_ptr<Workload> FdtdTemplate::make_workload(const Problem& problem, std::uint64_t seed) const {
  return std::make_unique<FdtdWorkload>(problem.at("nx"), problem.at("ny"), problem.at("nz"),
                                        static_cast<int>(problem.at("radius")), seed);
}

const FdtdTemplate& fdtd() {
  static const FdtdTemplate instance;
  return instance;
}

std::string FdtdTemplate::explain(const TuningResult& result) const { return fdtd_shape_note(result); }

} // namespace memtune::templates
