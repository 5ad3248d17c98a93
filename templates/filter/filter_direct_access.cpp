// filter_direct's memory accesses for the analytical model (staging direct
// and shfl): each global instruction of templates/filter/filter.cu's
// filter_direct, as addresses per (warp, lane, iteration) of a block in the
// middle of the signal. No shared memory, no barrier.
#include "filter_geometry.hpp"

#include <memtune/templates/filter.hpp>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

AccessPattern filter_direct_access_pattern(const FilterGeometry& g, bool shuffled) {
  AccessPattern a;
  a.block_threads = static_cast<int>(g.block);
  a.blocks = g.blocks;
  a.barrier_between_load_and_compute = false;
  // Tile t's chunk k is chunk t * (items / 4) + k of the block: the tiles are
  // consecutive, so their outputs continue the chunks' block*4 stride.
  const std::int64_t chunks_per_tile = g.items / 4;
  const std::int64_t chunks = chunks_per_tile * g.tiles;
  const std::int64_t nh = g.halo / 4; // halo float4s each side (halo = R rounded up to 4: align = 1)
  const std::int64_t window = 1 + 2 * nh;
  const std::int64_t block_base = (g.blocks / 2) * g.tile * g.tiles;
  // Output o of (thread, chunk c): block_base + (c * block + thread) * 4.
  const auto first = [g, block_base](int warp, int lane, std::int64_t c) {
    return block_base + (c * g.block + warp * 32 + lane) * 4;
  };
  if (shuffled) {
    a.global.push_back({"load own float4", 16, AccessKind::load, chunks,
                        [=](int warp, int lane, std::int64_t c) -> Address {
                          return static_cast<std::uint64_t>(first(warp, lane, c) * 4);
                        }});
    // Lanes 0..nh-1 fetch the float4s right of the warp, lanes 32-nh..31 those left of it.
    a.global.push_back({"load the warp's halo float4", 16, AccessKind::load, chunks,
                        [=](int warp, int lane, std::int64_t c) -> Address {
                          const bool right = lane < nh, left = lane >= 32 - nh;
                          if (!right && !left) return std::nullopt;
                          const std::int64_t warp_first = first(warp, 0, c);
                          return static_cast<std::uint64_t>((warp_first + 4 * (right ? 32 + lane : lane - 32)) * 4);
                        }});
  } else {
    a.global.push_back({"load window float4s (read-only path)", 16, AccessKind::load, chunks * window,
                        [=](int warp, int lane, std::int64_t it) -> Address {
                          const std::int64_t c = it / window, i = it % window;
                          return static_cast<std::uint64_t>((first(warp, lane, c) - g.halo + 4 * i) * 4);
                        }});
  }
  a.global.push_back({"store outputs", 16, AccessKind::store, chunks,
                      [=](int warp, int lane, std::int64_t c) -> Address {
                        return static_cast<std::uint64_t>(first(warp, lane, c) * 4);
                      }});

  // Traffic: the input once from DRAM, the window overlap from L1/L2.
  a.arrays.push_back(model::halo_read_1d("input", g.n, 4, g.tile, g.halo, static_cast<double>(g.tile + 2 * g.halo) * 4));
  a.arrays.push_back({"output", static_cast<double>(g.n) * 4, static_cast<double>(g.n) * 4, 0, true});

  // A tile's chunks have their loads issued before the first FMA; with
  // several tiles, one tile's loads are in flight while the previous one
  // computes, and the block waits once per tile.
  a.loads_in_flight_per_thread = static_cast<double>(chunks_per_tile * (shuffled ? 1 : window));
  a.bytes_per_load = 16;
  a.memory_round_trips_per_block = static_cast<double>(g.tiles);
  // Per thread: the FMAs, ~4 per global access (address, guard), the
  // shuffles (one per window float outside the own float4), a prologue.
  const double accesses = static_cast<double>(chunks * ((shuffled ? 2 : window) + 1));
  const double shuffles = shuffled ? static_cast<double>(chunks * 2 * g.radius) * 2.0 : 0.0;
  const double per_thread = static_cast<double>(g.taps * g.items * g.tiles) + 4.0 * accesses + shuffles + 20.0;
  a.warp_instructions_per_block = per_thread * static_cast<double>((g.block + 31) / 32);
  return a;
}

} // namespace memtune::templates
