// The matvec kernels' memory accesses for the analytical model: each
// instruction of templates/matvec/matvec.cu, as addresses per (warp, lane,
// iteration) of a representative block (the middle row tile, column split 0).
// Addresses are relative to each array's base (256-byte aligned). Loops are
// one instruction with the loop's trip count (the kernel unrolls them into
// UNROLL copies with the same addresses).
#include "matvec_geometry.hpp"

#include <memtune/model/global_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/matvec.hpp>

#include <algorithm>
#include <cmath>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

namespace {

constexpr std::int64_t kXPiece = 2048; // [floats] matvec.cu's x slice in shared memory

std::uint64_t bytes(std::int64_t floats) { return static_cast<std::uint64_t>(floats) * 4; }
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Bytes moved (sectors x 32) per byte requested by the instruction, over its
// first two iterations in every warp of the block: 1 when coalesced.
double moved_per_requested(const GlobalInstruction& g, int warps) {
  double requested = 0, moved = 0;
  for (int w = 0; w < warps; ++w)
    for (std::int64_t it = 0; it < std::min<std::int64_t>(2, g.iterations); ++it) {
      const auto a = model::analyze_global(
          model::WarpAccess::from_function([&](int lane) { return g.address(w, lane, it); }, g.width_bytes, g.kind));
      requested += static_cast<double>(a.unique_bytes);
      moved += static_cast<double>(a.bytes_moved);
    }
  return requested > 0 ? std::max(1.0, moved / requested) : 1.0;
}

double sector_round(double b) { return std::ceil(b / 32.0) * 32.0; }

} // namespace

AccessPattern matvec_access_pattern(const search::Config& c, const Problem& problem, const Target& target) {
  const MatvecGeometry g(matvec_geometry_environment(c, problem, target));
  AccessPattern a;
  a.block_threads = static_cast<int>(g.block);
  a.blocks = g.row_tiles * g.splits;
  const int warps = static_cast<int>(std::max<std::int64_t>(1, g.block / 32));
  const std::int64_t M = g.rows, N = g.cols, B = g.block, V = g.vec, T = g.tpr, U = g.unroll;
  const std::int64_t R = g.tile_rows;
  const std::int64_t row_begin = (g.row_tiles / 2) * R;
  const std::int64_t c1 = g.split0_cols; // split 0: columns [0, c1)
  const bool split = g.splits > 1;
  const std::string out_name = split ? "store partial sums" : "store y";
  const auto tid_of = [](int warp, int lane) { return static_cast<std::int64_t>(warp) * 32 + lane; };

  GlobalInstruction load_a, load_x;
  std::vector<GlobalInstruction> stores;
  double per_thread = 30; // index set-up, guards, the finish
  double fmas = 0;        // per thread
  double round_trips = split ? 3 : 1;
  // Loads one thread waits for together: a batch of U, or with UNROLL 1 the
  // two that ptxas keeps in flight across iterations of the loop it unrolls
  // itself (the column-major mat-vec without splits: 1648 us measured on the
  // H100 at unroll 1, 1705 us at unroll 2; one load per round trip would
  // make the first twice as slow).
  const std::int64_t batch = g.prefetch ? U : std::max<std::int64_t>(U, 2);
  // In flight: without PREFETCH, the batch, issued whole before its first FMA
  // (sm_90 SASS of matvec_stream, CUDA 13.0: row-major vec4 unroll 4 and 8
  // issue 8 and 16 LDG, A's and x's, then 16 and 32 FFMA; at unroll 1, LDG
  // pairs between the FFMAs). PREFETCH keeps a batch in flight while the
  // previous one is used (U to 2U loads).
  double loads_in_flight = g.prefetch ? 1.5 * static_cast<double>(U) : static_cast<double>(batch);

  if (g.kernel != MatvecKernel::tiled && g.col_major()) {
    // stream: thread ty takes columns ty, ty + T, ...; col: groups of 4
    // consecutive columns, 4*ty, 4*ty + 4T, ... (x as one float4 per group).
    const bool groups = g.kernel == MatvecKernel::col;
    const std::int64_t TX = B / T;
    const std::int64_t iters = groups ? 4 * ceil_div(c1, 4 * T) : ceil_div(c1, T);
    auto row0 = [=](int w, int l) { return row_begin + (tid_of(w, l) % TX) * V; };
    auto col = [=](int w, int l, std::int64_t it) {
      const std::int64_t ty = tid_of(w, l) / TX;
      return groups ? (it / 4) * 4 * T + 4 * ty + it % 4 : ty + it * T;
    };
    load_a = {"load A column segment", static_cast<int>(V * 4), AccessKind::load, iters,
              [=](int w, int l, std::int64_t it) -> Address {
                const std::int64_t j = col(w, l, it);
                if (j >= c1) return std::nullopt;
                const std::int64_t r = row0(w, l) < M ? row0(w, l) : 0;
                return bytes(r + j * M);
              }};
    if (groups)
      load_x = {"load x (__ldg float4, one group per warp)", 16, AccessKind::load, iters / 4,
                [=](int w, int l, std::int64_t it) -> Address {
                  const std::int64_t j = col(w, l, 4 * it);
                  return j < c1 ? Address(bytes(j)) : std::nullopt;
                }};
    else
      load_x = {"load x (__ldg, one element per warp)", 4, AccessKind::load, iters,
                [=](int w, int l, std::int64_t it) -> Address {
                  const std::int64_t j = col(w, l, it);
                  return j < c1 ? Address(bytes(j)) : std::nullopt;
                }};
    if (T == 1) {
      stores.push_back({out_name, static_cast<int>(V * 4), AccessKind::store, 1,
                        [=](int w, int l, std::int64_t) -> Address {
                          return row0(w, l) < M ? Address(bytes(row0(w, l))) : std::nullopt;
                        }});
    } else {
      const std::int64_t rounds = ceil_div(R, B);
      a.shared.push_back({"store partial sums of a row", static_cast<int>(V * 4), AccessKind::store, 1,
                          [=](int w, int l, std::int64_t) -> Address {
                            const std::int64_t t = tid_of(w, l);
                            return bytes((t / TX) * R + (t % TX) * V);
                          }});
      a.shared.push_back({"add a row's partial sums", 4, AccessKind::load, rounds * T,
                          [=](int w, int l, std::int64_t it) -> Address {
                            const std::int64_t r = tid_of(w, l) + (it / T) * B;
                            return r < R ? Address(bytes((it % T) * R + r)) : std::nullopt;
                          }});
      stores.push_back({out_name, 4, AccessKind::store, rounds, [=](int w, int l, std::int64_t k) -> Address {
                          const std::int64_t r = tid_of(w, l) + k * B;
                          return (r < R && row_begin + r < M) ? Address(bytes(row_begin + r)) : std::nullopt;
                        }});
    }
    // col: a batch is unroll groups of 4 loads, all issued before the FMAs.
    const std::int64_t batch = groups ? 4 * U : U;
    if (groups) loads_in_flight = static_cast<double>(batch);
    per_thread += static_cast<double>(iters) * static_cast<double>((groups ? 2 : 4) + V) +
                  static_cast<double>(ceil_div(iters, batch)) * 3 + static_cast<double>(T * ceil_div(R, B));
    round_trips += static_cast<double>(ceil_div(iters, batch));
    a.bytes_per_load = static_cast<double>(V * 4);
    fmas = static_cast<double>(iters * V);
  } else if (g.kernel == MatvecKernel::stream) { // row-major
    const std::int64_t step = T * V;
    const std::int64_t iters = ceil_div(c1, step);
    auto row = [=](int w, int l) { return row_begin + tid_of(w, l) / T; };
    auto col = [=](int w, int l, std::int64_t it) { return (tid_of(w, l) % T) * V + it * step; };
    load_a = {"load A row segment", static_cast<int>(V * 4), AccessKind::load, iters,
              [=](int w, int l, std::int64_t it) -> Address {
                const std::int64_t j = col(w, l, it);
                if (j >= c1) return std::nullopt;
                const std::int64_t r = row(w, l) < M ? row(w, l) : 0;
                return bytes(r * N + j);
              }};
    if (!g.x_smem) {
      load_x = {"load x (__ldg)", static_cast<int>(V * 4), AccessKind::load, iters,
                [=](int w, int l, std::int64_t it) -> Address {
                  const std::int64_t j = col(w, l, it);
                  return j < c1 ? Address(bytes(j)) : std::nullopt;
                }};
    } else {
      const std::int64_t stage_iters = ceil_div(c1, B);
      load_x = {"stage x slice", 4, AccessKind::load, stage_iters, [=](int w, int l, std::int64_t it) -> Address {
                  const std::int64_t j = tid_of(w, l) + it * B;
                  return j < c1 ? Address(bytes(j)) : std::nullopt;
                }};
      a.shared.push_back({"store x slice", 4, AccessKind::store, stage_iters,
                          [=](int w, int l, std::int64_t it) -> Address {
                            const std::int64_t j = tid_of(w, l) + it * B;
                            return j < c1 ? Address(bytes(j % kXPiece)) : std::nullopt;
                          }});
      a.shared.push_back({"load x from the slice", static_cast<int>(V * 4), AccessKind::load, iters,
                          [=](int w, int l, std::int64_t it) -> Address {
                            const std::int64_t j = col(w, l, it);
                            return j < c1 ? Address(bytes(j % kXPiece)) : std::nullopt;
                          }});
      round_trips += static_cast<double>(ceil_div(c1, kXPiece));
    }
    if (T > 32) {
      a.shared.push_back({"store warp sums", 4, AccessKind::store, 1, [=](int w, int l, std::int64_t) -> Address {
                            return l == 0 ? Address(bytes(w)) : std::nullopt;
                          }});
      a.shared.push_back({"add a row's warp sums", 4, AccessKind::load, T / 32,
                          [=](int w, int l, std::int64_t it) -> Address {
                            return tid_of(w, l) % T == 0 ? Address(bytes(w + it)) : std::nullopt;
                          }});
    }
    stores.push_back({out_name, 4, AccessKind::store, 1, [=](int w, int l, std::int64_t) -> Address {
                        const std::int64_t r = row(w, l);
                        return (tid_of(w, l) % T == 0 && r < M) ? Address(bytes(r)) : std::nullopt;
                      }});
    per_thread += static_cast<double>(iters) * static_cast<double>(2 + V + 2) +
                  static_cast<double>(ceil_div(iters, U)) * 3 + 2.0 * 5;
    round_trips += static_cast<double>(ceil_div(iters, batch));
    a.bytes_per_load = static_cast<double>(V * 4);
    fmas = static_cast<double>(iters * V);
  } else { // tiled
    const std::int64_t tiles = ceil_div(c1, B);
    const std::int64_t P = B + g.pad;
    const std::uint64_t xs_base = bytes(B * P);
    load_x = {"load x tile", 4, AccessKind::load, tiles, [=](int w, int l, std::int64_t q) -> Address {
                const std::int64_t j = q * B + tid_of(w, l);
                return j < c1 ? Address(bytes(j)) : std::nullopt;
              }};
    if (g.col_major()) {
      load_a = {"load A tile (rows of a column)", 4, AccessKind::load, tiles * B,
                [=](int w, int l, std::int64_t it) -> Address {
                  const std::int64_t r = row_begin + tid_of(w, l), j = it;
                  return (r < M && j < c1) ? Address(bytes(j * M + r)) : std::nullopt;
                }};
      a.shared.push_back({"store A tile (thread's row)", 4, AccessKind::store, tiles * B,
                          [=](int w, int l, std::int64_t it) -> Address { return bytes(tid_of(w, l) * P + it % B); }});
    } else {
      load_a = {"load A tile (columns of a row)", 4, AccessKind::load, tiles * B,
                [=](int w, int l, std::int64_t it) -> Address {
                  const std::int64_t r = row_begin + it % B, j = (it / B) * B + tid_of(w, l);
                  return (r < M && j < c1) ? Address(bytes(r * N + j)) : std::nullopt;
                }};
      a.shared.push_back({"store A tile (a row)", 4, AccessKind::store, tiles * B,
                          [=](int w, int l, std::int64_t it) -> Address { return bytes((it % B) * P + tid_of(w, l)); }});
    }
    a.shared.push_back({"store x tile", 4, AccessKind::store, tiles,
                        [=](int w, int l, std::int64_t) -> Address { return xs_base + bytes(tid_of(w, l)); }});
    a.shared.push_back({"load A tile (thread's row)", 4, AccessKind::load, tiles * B,
                        [=](int w, int l, std::int64_t it) -> Address { return bytes(tid_of(w, l) * P + it % B); }});
    a.shared.push_back({"load x tile (broadcast)", 4, AccessKind::load, tiles * B,
                        [=](int, int, std::int64_t it) -> Address { return xs_base + bytes(it % B); }});
    stores.push_back({out_name, 4, AccessKind::store, 1, [=](int w, int l, std::int64_t) -> Address {
                        const std::int64_t r = row_begin + tid_of(w, l);
                        return r < M ? Address(bytes(r)) : std::nullopt;
                      }});
    // Per tile: B guarded loads and shared stores, B shared loads of A and x
    // and an FMA each, two barriers.
    per_thread += static_cast<double>(tiles) * (static_cast<double>(B) * 8 + 10);
    round_trips += static_cast<double>(tiles);
    loads_in_flight = 4; // the compiler unrolls the staging loop by about 4
    a.bytes_per_load = 4;
    fmas = static_cast<double>(tiles * B);
  }

  // x goes through the read-only path (__ldg) unless it is staged in shared
  // memory from plain loads (tiled, x_stage=smem).
  if (!g.x_smem && g.kernel == MatvecKernel::stream) load_x.path = GlobalPath::read_only;
  // Every row tile of a split reads that split's slice of x.
  load_x.shared_by_blocks = g.splits;
  a.global.push_back(load_a);
  a.global.push_back(load_x);
  a.global.insert(a.global.end(), stores.begin(), stores.end());

  // Traffic. A: once, times the sector waste of its loads. x: every row
  // tile reads its split's slice (L2 keeps it: the slice is the reuse
  // window). y: written once; partial sums: written and read back through L2.
  const double blocks = static_cast<double>(a.blocks);
  const double a_bytes = sector_round(static_cast<double>(M) * static_cast<double>(N) * 4);
  const double x_bytes = sector_round(static_cast<double>(N) * 4);
  const double y_bytes = sector_round(static_cast<double>(M) * 4);
  a.arrays.push_back({"A", a_bytes, a_bytes * moved_per_requested(load_a, warps), 0, false});
  a.arrays.push_back({"x", x_bytes, std::max(x_bytes, touched_bytes(load_x, warps) * blocks), static_cast<double>(c1) * 4, false});
  a.arrays.push_back({"y", y_bytes, y_bytes, 0, true});
  if (split) {
    const double p_bytes = sector_round(static_cast<double>(g.splits) * static_cast<double>(M) * 4);
    a.arrays.push_back({"partial sums", p_bytes, 2 * p_bytes, 0, true});
  }

  a.loads_in_flight_per_thread = loads_in_flight;
  a.warp_instructions_per_block = per_thread * warps;
  a.fp32_instructions_per_block = fmas * warps;
  a.memory_round_trips_per_block = round_trips;
  // Staging x (or the tile) in shared memory puts a __syncthreads between the
  // block's loads and its FMAs: the block, not the warp, alternates memory
  // and compute (time_model.hpp, overlap).
  a.barrier_between_load_and_compute = g.x_smem || g.kernel == MatvecKernel::tiled;
  a.main_loop_trips_per_thread = round_trips;
  return a;
}

} // namespace memtune::templates
