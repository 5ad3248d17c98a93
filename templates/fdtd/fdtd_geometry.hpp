#pragma once
// The fdtd kernel's geometry for one configuration, for the model: the
// description's own values (fdtd.cpp's parameters and derived values, which
// its launch and space read too), named. The kernel (fdtd.cu) is checked
// against the model's addresses by tests/templates/fdtd_emulation_test.cpp.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace memtune::templates {

// The floats one copy of fdtd_ring's moves where rows are nx floats long
// (the kernel's PIECE, chosen per launch): 4 where every row is 16-byte
// aligned, 2 where 8-byte aligned (nx even), 1 otherwise.
inline std::int64_t fdtd_row_piece(std::int64_t nx) { return nx % 4 == 0 ? 4 : nx % 2 == 0 ? 2 : 1; }

struct FdtdGeometry {
  std::int64_t nx, ny, nz, radius;
  std::int64_t bx, by, vx, zsplit, prefetch, min_warps;
  bool ring;                  // scheme ring (fdtd_ring); configurations without the axis are classic
  std::int64_t ky, zu, copy;  // ring: rows per thread, unrolled planes, 0 cp.async / 1 bulk (classic: 1, 3, 0)
  std::int64_t threads;       // per block
  std::int64_t min_blocks;    // __launch_bounds__ minimum blocks per SM: min_warps / warps per block, at least 1
  std::int64_t pad;           // 0/1: shared rows padded by H floats (PAD in fdtd.cu); 1 when the config has no pad axis
  std::int64_t tx, ty;        // tile: points per plane and block in x, y (ty = by * ky)
  std::int64_t halo_x;        // H: halo columns each side, rounded up to vx
  std::int64_t pitch;         // [floats] shared row
  std::int64_t rows;          // shared rows per plane buffer: ty + 2R
  std::int64_t y_halo_vectors; // 2R rows of bx vectors per plane
  std::int64_t halo_vectors;  // y halo + x halo (2*ty*H/vx) vectors per plane
  std::int64_t halo_rounds;   // halo vectors per thread
  std::int64_t chunk;         // planes per block
  std::int64_t grid_x, grid_y, grid_z;
  std::int64_t ring_halo;     // the ring's box halo columns: R rounded up to 4
  std::int64_t ring_pitch;    // [floats] the ring's box row

  // `env`: fdtd_geometry_environment(config, problem, target).
  explicit FdtdGeometry(const search::Config& env)
      : nx(env.at("nx")), ny(env.at("ny")), nz(env.at("nz")), radius(env.at("radius")), bx(env.at("bx")),
        by(env.at("by")), vx(env.at("vx")), zsplit(env.at("zsplit")), prefetch(env.at("prefetch")),
        min_warps(env.at("min_warps")), ring(env.at("ring") != 0), ky(env.at("ky")), zu(env.at("zu")),
        copy(env.at("copy")), threads(env.at("threads")), min_blocks(env.at("min_blocks")), pad(env.at("pad")),
        tx(env.at("tile_x")), ty(env.at("tile_y")), halo_x(env.at("halo_x")), pitch(env.at("pitch")),
        rows(env.at("rows")), y_halo_vectors(env.at("y_halo_vectors")), halo_vectors(env.at("halo_vectors")),
        halo_rounds(env.at("halo_rounds")), chunk(env.at("chunk")), grid_x(env.at("grid_x")),
        grid_y(env.at("grid_y")), grid_z(env.at("grid_z")), ring_halo(env.at("ring_halo")),
        ring_pitch(env.at("ring_pitch")) {}

  [[nodiscard]] std::int64_t blocks() const { return grid_x * grid_y * grid_z; }

  // The block the model replays: the middle of each grid axis, rounded down,
  // so on an axis of two or more blocks never the last one, whose tile may
  // overhang the volume (a 128-column tile's second block on 132 columns
  // holds 4) and whose z-chunk may be shorter.
  [[nodiscard]] std::int64_t sample_x0() const { return (grid_x - 1) / 2 * tx; }
  [[nodiscard]] std::int64_t sample_y0() const { return (grid_y - 1) / 2 * ty; }
  [[nodiscard]] std::int64_t sample_z0() const { return (grid_z - 1) / 2 * chunk; }
  // The launch's global traffic in sampled blocks' worth
  // (AccessPattern::global_traffic_blocks): per axis, the volume's extent
  // over the grid's blocks times the sample's extent inside the volume.
  [[nodiscard]] double traffic_blocks() const {
    const auto axis = [](std::int64_t n, std::int64_t blocks, std::int64_t start, std::int64_t size) {
      return static_cast<double>(n) / static_cast<double>(blocks * std::clamp<std::int64_t>(n - start, 1, size));
    };
    return static_cast<double>(blocks()) * axis(nx, grid_x, sample_x0(), tx) * axis(ny, grid_y, sample_y0(), ty) *
           axis(nz, grid_z, sample_z0(), chunk);
  }
};

// The description's values for one configuration (fdtd.cpp); a recorded
// configuration without an axis ran what the kernel did before the axis
// existed: the classic scheme, padded rows, no register cap.
[[nodiscard]] search::Config fdtd_geometry_environment(const search::Config& config, const Problem& problem,
                                                       const Target& target);

// The configuration's memory accesses for the analytical model (no GPU): fdtd_access.cpp.
// Thread (tx, ty) of a block for (warp, lane), nullopt past the block's threads.
struct FdtdLane {
  std::int64_t tx, ty;
};
[[nodiscard]] inline std::optional<FdtdLane> fdtd_lane(const FdtdGeometry& g, int warp, int lane) {
  const std::int64_t tid = static_cast<std::int64_t>(warp) * 32 + lane;
  if (tid >= g.threads) return std::nullopt;
  return FdtdLane{tid % g.bx, tid / g.bx};
}

// Parts the two schemes' access patterns share (fdtd_access.cpp): how many z
// in [begin, end) satisfy lo <= z + offset < hi; and the launch's traffic per
// array from a.global (the last global instruction is the output store),
// planes_in_flight planes of each resident block's tile kept in L2, as a
// function of the resident blocks (AccessPattern::arrays_by_residency).
[[nodiscard]] std::int64_t fdtd_count_in(std::int64_t begin, std::int64_t end, std::int64_t offset, std::int64_t lo,
                                         std::int64_t hi);
void add_fdtd_traffic(AccessPattern& a, const FdtdGeometry& g, int warps, std::int64_t planes_in_flight);

// The same for the ring scheme (fdtd_ring_access.cpp); fdtd_access_pattern
// calls it for ring configurations.
[[nodiscard]] AccessPattern fdtd_ring_access_pattern(const FdtdGeometry& g);

[[nodiscard]] AccessPattern fdtd_access_pattern(const search::Config& config, const Problem& problem,
                                                const Target& target);

} // namespace memtune::templates
