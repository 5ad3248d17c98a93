// fdtd_ring's memory accesses for the analytical model: each instruction of
// templates/fdtd/fdtd.cu's ring scheme, as addresses per (warp, lane) of a
// block in the middle of the volume, replayed for one plane and repeated for
// the planes of its chunk. Addresses are relative to the input/output base.
#include "fdtd_geometry.hpp"

#include <memtune/model/global_access.hpp>

#include <algorithm>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

AccessPattern fdtd_ring_access_pattern(const FdtdGeometry& g) {
  AccessPattern a;
  a.block_threads = static_cast<int>(g.threads);
  a.blocks = g.blocks();
  a.global_traffic_blocks = g.traffic_blocks();
  a.bank_width_bytes = 4;
  const int warps = static_cast<int>((g.threads + 31) / 32);
  // A box row: BOXW floats copied, PITCH apart in shared memory (4 more where
  // the kernel's bulk copies take longer rows, nx % 8 == 4: fdtd.cpp's ring_copy).
  const std::int64_t R = g.radius, PF = g.prefetch, HB = g.ring_halo, PITCH = g.ring_pitch, BOXW = g.tx + 2 * HB;
  const std::int64_t box_rows = g.ty + 2 * R, box_vectors = box_rows * BOXW / 4;
  const std::int64_t rounds = (box_vectors + g.threads - 1) / g.threads; // 16-byte copies per thread and plane
  const std::int64_t HW = (R + g.vx - 1) / g.vx * g.vx;                   // the x window's halo
  const int vec_bytes = static_cast<int>(g.vx * 4);

  const std::int64_t x0 = g.sample_x0(), y0 = g.sample_y0();
  const std::int64_t z0 = g.sample_z0(), z1 = std::min(g.nz, z0 + g.chunk);
  const std::int64_t steps = z1 - z0;
  // Planes the chunk copies: its own and R beyond its end, those inside the volume.
  const std::int64_t copied = fdtd_count_in(z0, z1 + R, 0, 0, g.nz);
  const std::int64_t z_sample = std::min(z0, g.nz - 1);
  const std::int64_t plane = g.nx * g.ny;

  const auto lane_of = [g](int warp, int lane) { return fdtd_lane(g, warp, lane); };
  // [bytes] of the `width`-float vector at (x, y) of plane z_sample, nullopt outside the volume.
  const auto global_at = [=](std::int64_t x, std::int64_t y, std::int64_t width) -> Address {
    if (x + width <= 0 || x >= g.nx || y < 0 || y >= g.ny) return std::nullopt;
    const std::int64_t index = z_sample * plane + y * g.nx + std::max<std::int64_t>(x, 0);
    return static_cast<std::uint64_t>(index / width * width * 4);
  };

  // Global: the queue's first 2R planes (ky rows of a vx vector each), then
  // per plane the box copies (16-byte pieces; the bulk row copies read
  // the same sectors), then ky output stores per plane.
  const std::int64_t fill_planes = fdtd_count_in(0, 2 * R, z0 - R, 0, g.nz);
  // A thread's own row k of vx-vectors: where it loads the queue's start and stores its outputs.
  const auto own_row = [=](std::int64_t k) {
    return [=](int warp, int lane, std::int64_t) -> Address {
      const auto t = lane_of(warp, lane);
      if (!t) return std::nullopt;
      return global_at(x0 + t->tx * g.vx, y0 + t->ty * g.ky + k, g.vx);
    };
  };
  for (std::int64_t k = 0; k < g.ky; ++k)
    a.global.push_back({"load queue start, row " + std::to_string(k), vec_bytes, AccessKind::load, 1, own_row(k),
                        fill_planes});
  // Rows not 16-byte aligned (nx % 4 != 0): whole warps copy box rows
  // (warp w rows w, w + CW, ...) in segments of one piece a lane (two floats
  // where nx is even, one where it is odd), only the part inside the volume.
  const std::int64_t piece = fdtd_row_piece(g.nx);
  const bool aligned = piece == 4;
  const bool row_segments = !aligned;
  const std::int64_t CL = std::min<std::int64_t>(32, g.threads), CW = g.threads / CL;
  const std::int64_t RPW = (box_rows + CW - 1) / CW, NSEG = (BOXW + piece * CL - 1) / (piece * CL);
  const std::int64_t copy_rounds = row_segments ? RPW * NSEG : rounds; // a thread's copy instructions per plane
  // The row segments copy a box row's part inside the volume: in_row
  // floats from box column lo (the kernel's bx_lo and bx_hi), rows inside [0, ny).
  const std::int64_t lo = std::max<std::int64_t>(0, HB - x0);
  const std::int64_t in_row = std::min(x0 - HB + BOXW, g.nx) - std::max<std::int64_t>(x0 - HB, 0);
  // Box row and column that (warp, lane) copies in its round i: nullopt for none.
  const auto copied_at = [=](int warp, int lane, std::int64_t i) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
    if (row_segments) {
      const std::int64_t row = warp + CW * (i / NSEG), col = piece * (CL * (i % NSEG) + lane);
      const std::int64_t gy = y0 - R + row;
      if (warp >= CW || lane >= CL || row >= box_rows || col >= in_row || gy < 0 || gy >= g.ny) return std::nullopt;
      return std::pair{row, lo + col};
    }
    const std::int64_t v = static_cast<std::int64_t>(warp) * 32 + lane + i * g.threads;
    if (warp * 32 + lane >= g.threads || v >= box_vectors) return std::nullopt;
    return std::pair{v / (BOXW / 4), (v % (BOXW / 4)) * 4};
  };
  for (std::int64_t k = 0; k < copy_rounds; ++k)
    a.global.push_back({"copy box " + std::to_string(k), static_cast<int>(4 * piece), AccessKind::load, 1,
                        [=](int warp, int lane, std::int64_t) -> Address {
                          const auto at = copied_at(warp, lane, k);
                          if (!at) return std::nullopt;
                          return global_at(x0 - HB + at->second, y0 - R + at->first, piece);
                        },
                        copied});
  for (std::int64_t k = 0; k < g.ky; ++k)
    a.global.push_back({"store output, row " + std::to_string(k), vec_bytes, AccessKind::store, 1, own_row(k), steps});

  // Shared, per plane: the copies land (16-byte writes), then each thread
  // reads its newest queue entries (ky rows of plane z+R), its 2R y
  // neighbours and, per row, the x window's 2*HW/vx vectors. Every stage
  // is laid out alike: one stands for all.
  const auto own = [=](const FdtdLane& t, std::int64_t row) { return (R + t.ty * g.ky + row) * PITCH + HB + t.tx * g.vx; };
  // nx % 4 != 0: a warp's copy writes consecutive pieces of one row.
  a.shared.push_back({"copies land", static_cast<int>(4 * piece), AccessKind::store, copy_rounds,
                      [=](int warp, int lane, std::int64_t i) -> Address {
                        const auto at = copied_at(warp, lane, i);
                        if (!at) return std::nullopt;
                        return static_cast<std::uint64_t>((at->first * PITCH + at->second) * 4);
                      },
                      copied});
  a.shared.push_back({"load queue entry (plane z+R)", vec_bytes, AccessKind::load, g.ky,
                      [=](int warp, int lane, std::int64_t k) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        return static_cast<std::uint64_t>(own(*t, k) * 4);
                      },
                      steps});
  a.shared.push_back({"load y neighbours", vec_bytes, AccessKind::load, 2 * R,
                      [=](int warp, int lane, std::int64_t j) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        const std::int64_t row = j < R ? -(j + 1) : g.ky - 1 + (j - R + 1);
                        return static_cast<std::uint64_t>((own(*t, 0) + row * PITCH) * 4);
                      },
                      steps});
  const std::int64_t window_loads = 2 * (HW / g.vx);
  a.shared.push_back({"load x window", vec_bytes, AccessKind::load, g.ky * window_loads,
                      [=](int warp, int lane, std::int64_t i) -> Address {
                        const auto t = lane_of(warp, lane);
                        if (!t) return std::nullopt;
                        const std::int64_t k = i / window_loads, w = i % window_loads, half = window_loads / 2;
                        const std::int64_t offset = w < half ? -HW + w * g.vx : g.vx + (w - half) * g.vx;
                        return static_cast<std::uint64_t>((own(*t, k) + offset) * 4);
                      },
                      steps});

  add_fdtd_traffic(a, g, warps, R + PF + 1);

  // In flight per thread: its 16-byte copies of the prefetch planes (the
  // copies need no registers, so the look-ahead costs shared memory only).
  a.loads_in_flight_per_thread = static_cast<double>(PF * rounds);
  a.bytes_per_load = 16;
  a.barrier_between_load_and_compute = false;
  a.memory_round_trips_per_block = 1.0 + static_cast<double>(steps) / static_cast<double>(PF + 1);
  // The z loop's body is unrolled zu times: its spill code (ptxas counts the
  // bytes of the code, not of a run) covers zu planes and runs once per zu.
  a.main_loop_trips_per_thread = static_cast<double>(steps) / static_cast<double>(g.zu);

  // Rows not 16-byte aligned take the kernel's other loops (above): 8- or
  // 4-byte row segments (bulk too: the copy engine needs aligned rows), and
  // vx / 2 predicated float2 stores (nx even) or vx single ones an output
  // vector.
  const bool bulk = g.copy == 1 && aligned;
  if (bulk) {
    // The copy engine's requests: one per box row inside the volume and plane copied.
    const std::int64_t rows_in = std::max<std::int64_t>(0, std::min(g.ny, y0 - R + box_rows) - std::max<std::int64_t>(0, y0 - R));
    const std::int64_t cols_in =
        std::max<std::int64_t>(0, std::min(g.nx, x0 - HB + BOXW) - std::max<std::int64_t>(0, x0 - HB));
    a.bulk_copies_per_block = static_cast<double>(rows_in * copied);
    a.bulk_copy_bytes_per_block = static_cast<double>(rows_in * copied * cols_in * 4);
  }

  // Issued instructions per thread and plane: ~3 per copy (address, size,
  // copy; a row segment 2: predicate, copy, and 4 a row; bulk: one lane per
  // warp issues the row copies), the shared loads,
  // 6R+1 arithmetic operations per point, the queue shift (2R moves per
  // float, once per zu planes), the stores, a barrier and the wait, plus
  // the ring's index arithmetic (about 10, the kernel's comments count 163
  // warp instructions per 128 points at vx4 ky1 zu9).
  const double points = static_cast<double>(g.vx * g.ky);
  const double copies = bulk           ? 2.0
                        : row_segments ? static_cast<double>(2 * copy_rounds + 4 * RPW)
                                       : 3.0 * static_cast<double>(rounds);
  const std::int64_t store_pieces = g.vx / std::min(g.vx, piece);
  const double stores = static_cast<double>(g.ky) * (aligned ? 1.0 : 2.0 * static_cast<double>(store_pieces));
  const double per_plane = copies + static_cast<double>(g.ky * (1 + window_loads) + 2 * R) +
                           static_cast<double>(6 * R + 1) * points +
                           static_cast<double>(2 * R) * points / static_cast<double>(g.zu) + stores + 12.0;
  a.warp_instructions_per_block = (per_plane * static_cast<double>(steps) + 4.0 * static_cast<double>(2 * R) + 60.0) * warps;
  return a;
}

} // namespace memtune::templates
