// The transpose kernel's memory accesses for the analytical model: each
// instruction of templates/transpose/transpose.cu, as addresses per (warp,
// lane, iteration k = copy) of the block in the middle of the grid (with the
// kernel's guards, so a matrix smaller than a tile is modelled as it runs).
// Global addresses are relative to each matrix's base (256-byte aligned).
#include "geometry_environment.hpp"
#include "transpose_geometry.hpp"

#include <memtune/model/global_access.hpp>
#include <memtune/model/time_model.hpp>
#include <memtune/templates/transpose.hpp>

#include <algorithm>
#include <cmath>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

namespace {

constexpr std::int64_t kSectorFloats = 8; // an output segment shifts by up to 7 floats onto a 32-byte sector
constexpr std::int64_t kHalo = 8;         // transpose.cu's HALO: the input rows the tile holds above its own

// One element a thread copies: in(row, col) -> out(col, row), through the
// shared tile at tile[row - row0][col - col0] (row0: kHalo rows above the tile's own).
struct Copy {
  std::int64_t i, j;     // in the shared tile: row i (of the input's rows), column j
  std::int64_t row, col; // element of `in`; of `out`, (col, row)
};

Copy element(std::int64_t row0, std::int64_t col0, std::int64_t i, std::int64_t j) {
  return {i, j, row0 + i, col0 + j};
}

// Iteration k of the load loop (k = tile-row step x pieces + piece, as the
// unrolled loops run): thread (tx, ty) reads tile[ty + step ROWS][tx + piece BX]
// (the tile's rows are the 8 above its own first, then its own).
Copy loaded_by(const TransposeGeometry& g, std::int64_t row0, std::int64_t col0, int warp, int lane, std::int64_t k) {
  const std::int64_t t = std::int64_t{warp} * 32 + lane, pieces = g.tile / g.block_x;
  return element(row0, col0, t / g.block_x + (k / pieces) * g.block_rows, t % g.block_x + (k % pieces) * g.block_x);
}

// Iteration k of the store loop: thread (tx, ty) writes tile[HALO - m + tx + piece BX][ty + step ROWS],
// m = (output row x rows) % 8: the output segment's shift onto a sector.
Copy stored_by(const TransposeGeometry& g, std::int64_t row0, std::int64_t col0, int warp, int lane, std::int64_t k) {
  const std::int64_t t = std::int64_t{warp} * 32 + lane, pieces = g.tile_rows / g.block_x;
  const std::int64_t j = t / g.block_x + (k / pieces) * g.block_rows;
  const std::int64_t m = ((col0 + j) * g.rows) % kSectorFloats;
  return element(row0, col0, kHalo - m + t % g.block_x + (k % pieces) * g.block_x, j);
}

// Bytes moved (sectors x 32) per distinct byte used, over every warp and
// iteration of the block: 1 when every sector is used whole.
double moved_per_used(const GlobalInstruction& g, int warps) {
  double used = 0, moved = 0;
  for (int w = 0; w < warps; ++w)
    for (std::int64_t it = 0; it < g.iterations; ++it) {
      const auto a = model::analyze_global(model::WarpAccess::from_function(
          [&](int lane) { return g.address(w, lane, it); }, g.width_bytes, g.kind));
      used += static_cast<double>(a.unique_bytes);
      moved += static_cast<double>(a.bytes_moved);
    }
  return used > 0 ? std::max(1.0, moved / used) : 1.0;
}

} // namespace

AccessPattern transpose_access_pattern(const search::Config& config, const Problem& problem, const Target& target) {
  const TransposeGeometry g(geometry_environment(transpose_description(), config, problem, target));
  AccessPattern a;
  a.block_threads = static_cast<int>(g.threads());
  a.blocks = g.grid_x * g.grid_y;
  a.barrier_between_load_and_compute = true; // load the tile, __syncthreads, write it transposed
  const int warps = static_cast<int>((g.threads() + 31) / 32);
  const std::int64_t base = (g.grid_y / 2) * g.tile_rows, row0 = base - kHalo, col0 = (g.grid_x / 2) * g.tile;
  const std::int64_t row_lo = g.halo > 0 ? 0 : base; // the rows above are loaded only where segments shift

  // Every thread stores all its copies to the tile, zeros past the matrix (never read back) ...
  const auto staged = [g, row0, col0](int warp, int lane, std::int64_t k) -> std::optional<Copy> {
    const Copy c = loaded_by(g, row0, col0, warp, lane, k);
    if (c.i >= g.tile_rows + kHalo) return std::nullopt;
    return c;
  };
  // ... and loads the ones inside the matrix.
  const auto loaded = [g, staged, row_lo](int warp, int lane, std::int64_t k) -> std::optional<Copy> {
    const std::optional<Copy> c = staged(warp, lane, k);
    if (!c || c->row < row_lo || c->row >= g.rows || c->col >= g.cols) return std::nullopt;
    return c;
  };
  const auto stored = [g, row0, col0](int warp, int lane, std::int64_t k) -> std::optional<Copy> {
    const Copy c = stored_by(g, row0, col0, warp, lane, k);
    if (c.col >= g.cols || c.row < 0 || c.row >= g.rows) return std::nullopt;
    return c;
  };

  // An instruction's addresses: where each of its copies' elements lies, [bytes].
  const auto at = [](auto copies, auto byte_offset) {
    return [=](int warp, int lane, std::int64_t k) -> Address {
      const std::optional<Copy> c = copies(warp, lane, k);
      if (!c) return std::nullopt;
      return static_cast<std::uint64_t>(byte_offset(*c));
    };
  };
  // Phase 1: rows of `in`, coalesced, into rows of the shared tile.
  a.global.push_back({"load tile rows", 4, AccessKind::load, g.load_iterations(),
                      at(loaded, [g](const Copy& c) { return (c.row * g.cols + c.col) * 4; })});
  a.shared.push_back({"store tile rows", 4, AccessKind::store, g.load_iterations(),
                      at(staged, [g](const Copy& c) { return (c.i * g.pitch + c.j) * 4; })});
  // Phase 2: columns of the shared tile (lanes a pitch apart: the bank
  // conflict the padding removes) to rows of `out`, coalesced.
  a.shared.push_back({"load tile columns", 4, AccessKind::load, g.copies,
                      at(stored, [g](const Copy& c) { return (c.i * g.pitch + c.j) * 4; })});
  a.global.push_back({"store transposed rows", 4, AccessKind::store, g.copies,
                      at(stored, [g](const Copy& c) { return (c.col * g.rows + c.row) * 4; })});

  // Traffic: every element is read once from DRAM and written once; a tile
  // row of TILE floats (an output segment of TILE_ROWS) that does not start on
  // a sector boundary (cols or rows not a multiple of 8) moves the partial
  // sectors at its ends too. Where rows % 8 != 0 the 8 rows above each tile
  // are read a second time, from L2 (the tile above read them last); the
  // shifted output segments then write whole sectors.
  const double bytes = std::ceil(static_cast<double>(g.rows * g.cols) * 4 / 32.0) * 32.0;
  const double reread = static_cast<double>(g.tile_rows + g.halo) / static_cast<double>(g.tile_rows);
  a.arrays.push_back({"in", bytes, bytes * moved_per_used(a.global[0], warps) * reread, 0, false});
  a.arrays.push_back({"out", bytes, bytes * moved_per_used(a.global[1], warps), 0, true});

  // The unrolled load loop issues all of a thread's copies before the barrier.
  const double load_copies = static_cast<double>((g.tile_rows + g.halo) * g.tile) / static_cast<double>(g.threads());
  a.loads_in_flight_per_thread = load_copies;
  a.bytes_per_load = 4;
  // Issued instructions per thread, as the unrolled kernel compiles. Every
  // step of the load loop (the 8 rows above the tile's own included: guarded,
  // not skipped) computes its row's 64-bit offset and guards, each load adds
  // its column, loads and stores to the tile; every output row computes its
  // sector shift m (a 64-bit multiply) and offsets, each store its guards, a
  // shared load and a global store. Fitted to what Nsight Compute issued on
  // eight configurations at 4096x4096 on an H200 (docs/model.md: 183 to 2881
  // warp instructions per warp, 1-16 warps a block), within 12 %: 12 per load
  // step, 4 per load, 15 per output row, 4 per store. The time model
  // multiplies its instruction_overhead back, so they are counted here
  // divided by it.
  const double issued = static_cast<double>(g.load_steps) * (12.0 + 4.0 * static_cast<double>(g.tile / g.block_x)) +
                        static_cast<double>(g.tile / g.block_rows) * (15.0 + 4.0 * static_cast<double>(g.tile_rows / g.block_x));
  const double per_thread = issued / model::TimeModelParams{}.instruction_overhead;
  a.warp_instructions_per_block = per_thread * warps;
  return a;
}

} // namespace memtune::templates
