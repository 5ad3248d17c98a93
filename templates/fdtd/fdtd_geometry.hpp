#pragma once
// The fdtd kernel's geometry for one configuration: the same arithmetic as
// templates/fdtd/fdtd.cu, in one place for the launch, the space and the model.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace memtune::templates {

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

  FdtdGeometry(const search::Config& c, const Problem& p)
      : nx(p.at("nx")), ny(p.at("ny")), nz(p.at("nz")), radius(p.at("radius")), bx(c.at("bx")), by(c.at("by")),
        vx(c.at("vx")), zsplit(c.at("zsplit")), prefetch(c.at("prefetch")), min_warps(c.at("min_warps")),
        ring(c.has("scheme") && c.at("scheme") == 1), ky(c.has("ky") ? c.at("ky") : 1), zu(c.has("zu") ? c.at("zu") : 3),
        copy(c.has("copy") ? c.at("copy") : 0), threads(bx * by), min_blocks(std::max<std::int64_t>(1, min_warps * 32 / threads)), pad(c.has("pad") ? c.at("pad") : 1), tx(bx * vx),
        ty(by * ky), halo_x((radius + vx - 1) / vx * vx), pitch(tx + 2 * halo_x + pad * halo_x), rows(ty + 2 * radius),
        y_halo_vectors(2 * radius * bx), halo_vectors(y_halo_vectors + 2 * ty * (halo_x / vx)),
        halo_rounds((halo_vectors + threads - 1) / threads), chunk((nz + zsplit - 1) / zsplit),
        grid_x((nx + tx - 1) / tx), grid_y((ny + ty - 1) / ty), grid_z((nz + chunk - 1) / chunk) {}

  [[nodiscard]] std::int64_t blocks() const { return grid_x * grid_y * grid_z; }
  [[nodiscard]] std::size_t static_smem_bytes() const { return static_cast<std::size_t>(2 * rows * pitch * 4); }

  // The ring (fdtd_ring): box halo columns (R rounded up to 4), floats per
  // box row, stages (R + 1 + prefetch), and its dynamic shared memory.
  [[nodiscard]] std::int64_t ring_halo() const { return (radius + 3) / 4 * 4; }
  [[nodiscard]] std::int64_t ring_pitch() const { return tx + 2 * ring_halo(); }
  [[nodiscard]] std::int64_t ring_stages() const { return radius + 1 + prefetch; }
  [[nodiscard]] std::size_t ring_smem_bytes() const {
    return static_cast<std::size_t>(ring_stages() * (ty + 2 * radius) * ring_pitch() * 4);
  }
};

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
