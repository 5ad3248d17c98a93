// The fdtd kernel's memory accesses for the analytical model: each
// instruction of templates/fdtd/fdtd.cu, as addresses per (warp, lane,
// iteration = plane of the chunk) of a block in the middle of the volume.
// Addresses are relative to the input/output base (256-byte aligned).
#include "fdtd_geometry.hpp"

#include <memtune/model/global_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/fdtd.hpp>

#include <algorithm>
#include <cmath>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

namespace {

// Where halo vector u of a plane lives (as in the kernel): shared row/column
// and global x/y. Rows: 0..R-1 above the tile, R..R+TY-1 the tile, below.
struct HaloVector {
  std::int64_t row, col; // shared
  std::int64_t gx, gy;   // global (may lie outside the volume)
};

HaloVector halo_vector(const FdtdGeometry& g, std::int64_t x0, std::int64_t y0, std::int64_t u) {
  const std::int64_t R = g.radius, hv = g.halo_x / g.vx;
  HaloVector h{};
  if (u < g.y_halo_vectors) {
    const std::int64_t hr = u / g.bx, c = u % g.bx;
    h.row = hr < R ? hr : g.ty + hr;
    h.col = g.halo_x + c * g.vx;
  } else {
    const std::int64_t v = u - g.y_halo_vectors, side = v / (g.ty * hv), rem = v % (g.ty * hv);
    h.row = R + rem / hv;
    h.col = side ? g.halo_x + g.tx + (rem % hv) * g.vx : (rem % hv) * g.vx;
  }
  h.gy = y0 + h.row - R;
  h.gx = x0 - g.halo_x + h.col;
  return h;
}

} // namespace

// How many z in [begin, end) satisfy lo <= z + offset < hi.
std::int64_t fdtd_count_in(std::int64_t begin, std::int64_t end, std::int64_t offset, std::int64_t lo, std::int64_t hi) {
  const std::int64_t first = std::max(begin, lo - offset), last = std::min(end, hi - offset);
  return std::max<std::int64_t>(0, last - first);
}

void add_fdtd_traffic(AccessPattern& a, const FdtdGeometry& g, int warps, std::int64_t planes_in_flight) {
  // The volume is read once from DRAM while the halo re-reads by the x/y
  // neighbours (a few planes later) hit L2. The 2R planes a z-chunk shares
  // with the chunk below are read by that chunk at the end of its life and by
  // this one at the start of its own. Blocks are dispatched x, then y, then
  // z: this chunk's block starts slice / resident blocks lifetimes after the
  // one below, which read the planes one lifetime after it started, so the
  // planes wait |slice / resident - 1| lifetimes (0 when one z-slice fills
  // the GPU exactly, a whole chunk when the z-chunks run side by side) and
  // hit L2 only if what the resident blocks touch meanwhile fits.
  const std::int64_t R = g.radius, plane = g.nx * g.ny;
  const double volume_bytes = static_cast<double>(plane * g.nz) * 4;
  const double footprint = std::ceil(volume_bytes / 32) * 32;
  const double blocks = a.global_traffic_blocks > 0 ? a.global_traffic_blocks : static_cast<double>(a.blocks);
  double requested_in = 0;
  for (const auto& ins : a.global)
    if (ins.kind == AccessKind::load) requested_in += touched_bytes(ins, warps);
  requested_in *= blocks;
  const double requested_out = std::max(footprint, touched_bytes(a.global.back(), warps) * blocks);
  const double tile_plane_bytes = static_cast<double>(g.tx * g.ty) * 4 * 2; // in + out per plane
  const double overlap_bytes = g.grid_z > 1 ? static_cast<double>((g.grid_z - 1) * 2 * R * plane) * 4 : 0.0;
  const double xy_requested = std::max(footprint, requested_in - overlap_bytes);
  const double slice = static_cast<double>(g.grid_x * g.grid_y);
  const std::int64_t chunk = g.chunk;
  const double in_flight = static_cast<double>(planes_in_flight);
  // The reuse windows depend on how many blocks run at once, which the
  // registers decide: the model supplies it (AccessPattern::arrays_by_residency).
  a.arrays_by_residency = [=](double resident_blocks) {
    std::vector<model::ArrayTraffic> arrays;
    arrays.push_back({"input", footprint, xy_requested, resident_blocks * tile_plane_bytes * in_flight, false});
    if (overlap_bytes > 0)
      arrays.push_back({"input (z-chunk overlap)", 0, overlap_bytes,
                        resident_blocks * tile_plane_bytes *
                            (static_cast<double>(R) + in_flight +
                             static_cast<double>(chunk) * std::abs(slice / resident_blocks - 1.0)),
                        false});
    arrays.push_back({"output", footprint, requested_out, 0, true});
    return arrays;
  };
}

AccessPattern fdtd_access_pattern(const search::Config& c, const Problem& problem, const Target& target) {
  const FdtdGeometry g(fdtd_geometry_environment(c, problem, target));
  if (g.ring) return fdtd_ring_access_pattern(g);
  AccessPattern a;
  a.block_threads = static_cast<int>(g.threads);
  a.blocks = g.blocks();
  a.global_traffic_blocks = g.traffic_blocks();
  a.bank_width_bytes = 4;
  const int warps = static_cast<int>((g.threads + 31) / 32);
  const std::int64_t R = g.radius, PF = g.prefetch;

  // The representative block (FdtdGeometry::sample_x0).
  const std::int64_t x0 = g.sample_x0(), y0 = g.sample_y0();
  const std::int64_t z0 = g.sample_z0(), z1 = std::min(g.nz, z0 + g.chunk);
  const std::int64_t steps = z1 - z0;
  const std::int64_t z_in_end = std::min(g.nz, z1 + R);
  const std::int64_t plane = g.nx * g.ny;
  const int vec_bytes = static_cast<int>(g.vx * 4);

  const auto lane_of = [g](int warp, int lane) { return fdtd_lane(g, warp, lane); };
  // [bytes] of the vector at (x, y, z), or nullopt when the kernel reads
  // nothing there. Where nx is not a multiple of vx the kernel moves an
  // unaligned row's vector as single floats; the model sees the aligned
  // vector holding its first float (the same sectors, give or take one).
  const auto global_at = [g, plane](std::int64_t x, std::int64_t y, std::int64_t z, std::int64_t z_end) -> Address {
    if (x + g.vx <= 0 || x >= g.nx || y < 0 || y >= g.ny || z < 0 || z >= z_end) return std::nullopt;
    const std::int64_t index = z * plane + y * g.nx + std::max<std::int64_t>(x, 0);
    return static_cast<std::uint64_t>(index / g.vx * g.vx * 4);
  };

  // Every plane of the chunk accesses alike (shifted by a plane), so each
  // instruction is replayed for one plane and repeated for the planes where
  // it moves data: the kernel's guards skip planes outside the volume (and
  // beyond what the chunk needs).
  // Global: the queue's first 2R planes (and the prefetch slots), then per
  // plane the column load, the halo loads and the output store.
  const std::int64_t fill = 2 * R + PF;
  const std::int64_t fill_planes = fdtd_count_in(0, fill, z0 - R, 0, z_in_end);
  const std::int64_t column_planes = fdtd_count_in(z0, z1, R + PF, 0, z_in_end);
  const std::int64_t halo_planes = fdtd_count_in(z0, z1, PF, 0, z1);
  const std::int64_t z_sample = std::min(z0, g.nz - 1); // a plane inside the volume stands for each
  a.global.push_back({"load queue start", vec_bytes, AccessKind::load, 1,
                      [=](int warp, int lane, std::int64_t) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        return global_at(x0 + t->tx * g.vx, y0 + t->ty, z_sample, g.nz);
                      },
                      fill_planes});
  a.global.push_back({"load column (plane z+R+prefetch)", vec_bytes, AccessKind::load, 1,
                      [=](int warp, int lane, std::int64_t) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        return global_at(x0 + t->tx * g.vx, y0 + t->ty, z_sample, g.nz);
                      },
                      column_planes});
  for (std::int64_t k = 0; k < g.halo_rounds; ++k) {
    a.global.push_back({"load halo " + std::to_string(k), vec_bytes, AccessKind::load, 1,
                        [=](int warp, int lane, std::int64_t) -> Address {
                          const std::int64_t u = static_cast<std::int64_t>(warp) * 32 + lane + k * g.threads;
                          if (warp * 32 + lane >= g.threads || u >= g.halo_vectors) return std::nullopt;
                          const HaloVector h = halo_vector(g, x0, y0, u);
                          return global_at(h.gx, h.gy, z_sample, g.nz);
                        },
                        halo_planes});
  }
  a.global.push_back({"store output", vec_bytes, AccessKind::store, 1,
                      [=](int warp, int lane, std::int64_t) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        return global_at(x0 + t->tx * g.vx, y0 + t->ty, z_sample, g.nz);
                      },
                      steps});

  // Shared: per plane, the thread's own points and the halo are stored into
  // the plane buffer, then the x window and the 2R y neighbours read. The
  // two buffers differ by a constant offset, which moves every lane to
  // another bank alike: one buffer stands for both.
  const auto centre = [g](const FdtdLane& t) { return (g.radius + t.ty) * g.pitch + g.halo_x + t.tx * g.vx; };
  a.shared.push_back({"store plane", vec_bytes, AccessKind::store, 1,
                      [=](int warp, int lane, std::int64_t) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        return static_cast<std::uint64_t>(centre(*t) * 4);
                      },
                      steps});
  for (std::int64_t k = 0; k < g.halo_rounds; ++k) {
    a.shared.push_back({"store halo " + std::to_string(k), vec_bytes, AccessKind::store, 1,
                        [=](int warp, int lane, std::int64_t) -> Address {
                          const std::int64_t u = static_cast<std::int64_t>(warp) * 32 + lane + k * g.threads;
                          if (warp * 32 + lane >= g.threads || u >= g.halo_vectors) return std::nullopt;
                          const HaloVector h = halo_vector(g, x0, y0, u);
                          return static_cast<std::uint64_t>((h.row * g.pitch + h.col) * 4);
                        },
                        steps});
  }
  const std::int64_t window_vectors = (g.vx + 2 * g.halo_x) / g.vx;
  a.shared.push_back({"load x window", vec_bytes, AccessKind::load, window_vectors,
                      [=](int warp, int lane, std::int64_t w) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        return static_cast<std::uint64_t>((centre(*t) - g.halo_x + w * g.vx) * 4);
                      },
                      steps});
  a.shared.push_back({"load y neighbours", vec_bytes, AccessKind::load, 2 * R,
                      [=](int warp, int lane, std::int64_t j) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        const std::int64_t dy = j < R ? -(j + 1) : j - R + 1;
                        return static_cast<std::uint64_t>((centre(*t) + dy * g.pitch) * 4);
                      },
                      steps});

  add_fdtd_traffic(a, g, warps, R + PF + 1);

  // Loads in flight per thread: the column and the thread's share of the
  // halo, for each plane of look-ahead.
  a.loads_in_flight_per_thread =
      static_cast<double>(std::max<std::int64_t>(1, PF)) *
      (1.0 + static_cast<double>(g.halo_vectors) / static_cast<double>(g.threads));
  a.bytes_per_load = vec_bytes;
  // prefetch 0: a plane's loads land in shared memory before the barrier that
  // starts its compute; with look-ahead the loads in flight cross it.
  a.barrier_between_load_and_compute = PF == 0;
  // A load issued PF planes ahead is waited for at most once per PF+1 planes.
  a.memory_round_trips_per_block = 1.0 + static_cast<double>(steps) / static_cast<double>(PF + 1);
  a.main_loop_trips_per_thread = static_cast<double>(steps);

  // Issued instructions per thread and plane: guarded global loads (~4 each),
  // shared stores and loads, the queue shift (one move per float, unless the
  // compiler renames), 6R+1 arithmetic operations per point, the store and
  // the barrier, plus index arithmetic.
  const double per_plane = 4.0 * static_cast<double>(1 + g.halo_rounds) + static_cast<double>(1 + g.halo_rounds) +
                           static_cast<double>(window_vectors + 2 * R) +
                           static_cast<double>((2 * R + 1) * g.vx) + static_cast<double>((6 * R + 1) * g.vx) + 4.0 +
                           10.0;
  const double per_thread = per_plane * static_cast<double>(steps) + 4.0 * static_cast<double>(fill) + 40.0;
  a.warp_instructions_per_block = per_thread * warps;
  // The stencil: 6R + 1 multiply-adds per point.
  a.fp32_instructions_per_block = static_cast<double>((6 * R + 1) * g.vx * steps) * warps;
  return a;
}

} // namespace memtune::templates
