// The filter's memory accesses for the analytical model: each instruction of
// templates/filter/filter.cu, as addresses per (warp, lane, iteration) of a
// block in the middle of the signal.
#include "filter_geometry.hpp"

#include <memtune/templates/filter.hpp>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

FilterWindowReads window_reads(const FilterGeometry& g) {
  FilterWindowReads w;
  // The taps use elements t0 + HALO - R .. + ITEMS + 2R of the tile. Whichever
  // branch of the kernel reads them (the aligned branch loads whole chunks
  // from t0), the compiler drops what is never used and reads the rest with
  // the widest load it can prove aligned: a power of two of elements, at most
  // 16 bytes, that divides ITEMS (t0 = ITEMS x thread) and the element's
  // offset. sm_90 SASS, items 4, R 10, halo 12: LDS.64, 5 x LDS.128, LDS.64
  // (Nsight Compute's source counters; the dead elements 0-1 and 26-27 of the
  // aligned chunks are not read).
  w.start = g.halo - g.radius;
  const std::int64_t length = g.items + 2 * g.radius;
  std::int64_t widest = 1;
  while (widest * 2 * g.packing * 4 <= 16 && g.items % (widest * 2) == 0) widest *= 2;
  for (std::int64_t x = 0; x < length;) {
    std::int64_t width = widest;
    while (width > 1 && ((w.start + x) % width != 0 || x + width > length)) width /= 2;
    FilterWindowReads::Run* last = w.runs.empty() ? nullptr : &w.runs.back();
    if (last && last->width == width && last->first + last->count * width == x) ++last->count;
    else w.runs.push_back({width, 1, x});
    x += width;
  }
  return w;
}

AccessPattern filter_access_pattern(const search::Config& c, const Problem& problem, const Target& target) {
  const FilterGeometry g(filter_geometry_environment(c, problem, target));
  if (c.has("staging") && c.at("staging") != static_cast<std::int64_t>(FilterStaging::smem))
    return filter_direct_access_pattern(g, c.at("staging") == static_cast<std::int64_t>(FilterStaging::shfl));
  AccessPattern a;
  a.block_threads = static_cast<int>(g.block);
  a.blocks = g.blocks;
  a.barrier_between_load_and_compute = true; // stage, __syncthreads, compute
  a.bank_width_bytes = c.has("bank_mode") ? static_cast<int>(c.at("bank_mode")) : 4;

  // Global addresses are relative to the input/output base (256-byte aligned),
  // for the block in the middle of segment 0, so no guard is active.
  const std::int64_t tile_base = (g.blocks / 2) * g.tile;
  const std::int64_t g0 = tile_base - g.halo;
  const int vec_bytes = static_cast<int>(g.vec * 4);
  const int elem_bytes = static_cast<int>(g.packing * 4);

  // Staging: every (segment, round) is one VEC-wide load per thread, issued
  // before the first shared store; then the stores to shared memory.
  for (std::int64_t p = 0; p < g.packing; ++p) {
    a.global.push_back({"load input tile + halo (segment " + std::to_string(p) + ")", vec_bytes, AccessKind::load,
                        g.rounds, [g, p, g0](int warp, int lane, std::int64_t r) -> Address {
                          const std::int64_t v = warp * 32 + lane + r * g.block;
                          if (v >= g.vectors) return std::nullopt;
                          return static_cast<std::uint64_t>((p * g.seg + g0 + v * g.vec) * 4);
                        }});
    if (g.packing == 1) {
      a.shared.push_back({"store tile", vec_bytes, AccessKind::store, g.rounds,
                          [g](int warp, int lane, std::int64_t r) -> Address {
                            const std::int64_t v = warp * 32 + lane + r * g.block;
                            if (v >= g.vectors) return std::nullopt;
                            return static_cast<std::uint64_t>(v * g.vec * 4);
                          }});
    } else {
      // One 4-byte store per element: component p of the packed element.
      a.shared.push_back({"store tile component " + std::to_string(p), 4, AccessKind::store, g.rounds * g.vec,
                          [g, p](int warp, int lane, std::int64_t it) -> Address {
                            const std::int64_t r = it / g.vec, e = it % g.vec;
                            const std::int64_t v = warp * 32 + lane + r * g.block;
                            if (v >= g.vectors) return std::nullopt;
                            return static_cast<std::uint64_t>(((v * g.vec + e) * g.packing + p) * 4);
                          }});
    }
  }

  // The register window. The kernel reads it element by element (or, with
  // PACK 1 and ALIGN 1, as 16- or 8-byte vectors), but every offset is a
  // compile-time constant from a multiple of ITEMS, so the compiler merges
  // neighbouring elements into the widest shared load (up to 16 bytes) whose
  // alignment it can prove. ncu confirms it: with float2 elements and
  // ITEMS 4 the window is read with LDS.128, not LDS.64.
  const FilterWindowReads window = window_reads(g);
  for (const FilterWindowReads::Run& run : window.runs)
    a.shared.push_back({"load window (" + std::to_string(run.width * elem_bytes) + "-byte reads)",
                        static_cast<int>(run.width * elem_bytes), AccessKind::load, run.count,
                        [g, start = window.start, run](int warp, int lane, std::int64_t i) -> Address {
                          const std::int64_t t0 = (warp * 32 + lane) * g.items;
                          return static_cast<std::uint64_t>((t0 + start + run.first + i * run.width) * g.packing * 4);
                        }});

  for (std::int64_t p = 0; p < g.packing; ++p) {
    a.global.push_back({"store outputs (segment " + std::to_string(p) + ")", vec_bytes, AccessKind::store,
                        g.items / g.vec, [g, p, tile_base](int warp, int lane, std::int64_t q) -> Address {
                          const std::int64_t t0 = (warp * 32 + lane) * g.items;
                          return static_cast<std::uint64_t>((p * g.seg + tile_base + t0 + q * g.vec) * 4);
                        }});
  }

  // Traffic: the input is read once from DRAM (halos are re-read by the
  // neighbouring block moments later, from L2); the output written once.
  const double reuse_window = static_cast<double>(g.ext * g.packing * 4);
  a.arrays.push_back(model::halo_read_1d("input", g.n, 4, g.tile, g.halo, reuse_window));
  a.arrays.push_back({"output", static_cast<double>(g.n) * 4, static_cast<double>(g.n) * 4, 0, true});

  // Every staged load is issued before the first use.
  const double loads_per_thread = static_cast<double>(g.packing * g.vectors) / static_cast<double>(g.block);
  a.loads_in_flight_per_thread = std::max(1.0, loads_per_thread);
  a.bytes_per_load = vec_bytes;

  // Issued instructions per thread, as the fully unrolled kernel compiles
  // (every loop has a compile-time trip count, so shared offsets and tap
  // indices are immediates): one instruction per shared load or store and
  // per FMA (the tap is a constant-bank operand); a global load or store also
  // pays its 64-bit address and the bounds guard (about 3 more); plus a fixed
  // prologue (indices, tile base, barrier, exit).
  const double global_loads = static_cast<double>(g.packing * g.rounds);
  const double smem_stores = global_loads * (g.packing == 1 ? 1.0 : static_cast<double>(g.vec));
  double window_loads = 0;
  for (const auto& run : window.runs) window_loads += static_cast<double>(run.count);
  const double fmas = static_cast<double>(g.taps * g.items * g.packing);
  const double global_stores = static_cast<double>(g.packing * g.items / g.vec);
  const double per_thread = fmas + window_loads + smem_stores + 4.0 * (global_loads + global_stores) + 20.0;
  a.warp_instructions_per_block = per_thread * static_cast<double>((g.block + 31) / 32);
  a.fp32_instructions_per_block = fmas * static_cast<double>((g.block + 31) / 32);
  return a;
}

} // namespace memtune::templates
