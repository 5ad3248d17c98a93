// The aos_soa kernel's memory accesses for the analytical model: each
// instruction of templates/aos_soa/aos_soa.cu, as addresses per (warp, lane,
// iteration) of a block in the middle of the array. Addresses are relative to
// each array's base (256-byte aligned); SoA field f starts at f * pitch floats.
#include "aos_soa_geometry.hpp"
#include "geometry_environment.hpp"

#include <memtune/model/global_replay.hpp>
#include <memtune/model/global_access.hpp>
#include <memtune/templates/aos_soa.hpp>

#include <algorithm>

namespace memtune::templates {

using model::AccessKind;
using Address = std::optional<std::uint64_t>;

AccessPattern aos_soa_access_pattern(const search::Config& c, const Problem& problem, const Target& target) {
  const AosSoaGeometry g(geometry_environment(aos_soa_description(), c, problem, target));
  AccessPattern a;
  a.block_threads = static_cast<int>(g.block);
  a.blocks = g.blocks;
  const int warps = static_cast<int>(g.block / 32);
  const std::int64_t tile_base = (g.blocks / 2) * g.tile;
  const std::int64_t F = g.fields;
  const auto thread = [](int warp, int lane) { return static_cast<std::int64_t>(warp) * 32 + lane; };
  const auto bytes = [](std::int64_t floats) { return static_cast<std::uint64_t>(floats * 4); };
  const AccessKind struct_kind_in = AccessKind::load, struct_kind_out = AccessKind::store;

  // Global instructions touching the struct array (in, out) and the scalar array.
  std::vector<GlobalInstruction> struct_in, struct_out, scalar;
  const AccessKind scalar_kind = g.op == AosSoaOp::write ? AccessKind::load : AccessKind::store;
  const bool has_scalar = g.op != AosSoaOp::readwrite;

  switch (g.layout) {
  case AosSoaLayout::soa: {
    const std::int64_t w = g.soa_w, rounds = g.items / g.soa_w;
    for (std::int64_t f = 0; f < F; ++f) {
      auto address = [g, f, w, tile_base, thread, bytes](int warp, int lane, std::int64_t r) -> Address {
        return bytes(f * g.pitch + tile_base + (r * g.block + thread(warp, lane)) * w);
      };
      if (g.reads_struct()) struct_in.push_back({"load field " + std::to_string(f), static_cast<int>(w * 4), struct_kind_in, rounds, address});
      if (g.writes_struct()) struct_out.push_back({"store field " + std::to_string(f), static_cast<int>(w * 4), struct_kind_out, rounds, address});
    }
    if (has_scalar)
      scalar.push_back({g.op == AosSoaOp::write ? "load scalar" : "store sum", static_cast<int>(w * 4), scalar_kind, rounds,
                        [g, w, tile_base, thread, bytes](int warp, int lane, std::int64_t r) -> Address {
                          return bytes(tile_base + (r * g.block + thread(warp, lane)) * w);
                        }});
    break;
  }
  case AosSoaLayout::aos:
  case AosSoaLayout::aos_ldg: {
    for (std::int64_t f = 0; f < F; ++f) {
      auto address = [g, f, F, tile_base, thread, bytes](int warp, int lane, std::int64_t k) -> Address {
        return bytes((tile_base + k * g.block + thread(warp, lane)) * F + f);
      };
      const std::string via = g.layout == AosSoaLayout::aos_ldg ? " (__ldg)" : "";
      if (g.reads_struct()) {
        struct_in.push_back({"load field " + std::to_string(f) + via, 4, struct_kind_in, g.items, address});
        if (g.layout == AosSoaLayout::aos_ldg) struct_in.back().path = GlobalPath::read_only;
      }
      if (g.writes_struct()) struct_out.push_back({"store field " + std::to_string(f), 4, struct_kind_out, g.items, address});
    }
    break;
  }
  case AosSoaLayout::aos_smem: {
    const std::int64_t tile_v = g.tile * F / 4, rounds = (tile_v + g.block - 1) / g.block;
    auto global = [g, F, tile_base, tile_v, thread, bytes](int warp, int lane, std::int64_t r) -> Address {
      const std::int64_t v = thread(warp, lane) + r * g.block;
      if (v >= tile_v) return std::nullopt;
      return bytes(tile_base * F + 4 * v);
    };
    auto shared_tile = [g, tile_v, thread, bytes](int warp, int lane, std::int64_t r) -> Address {
      const std::int64_t v = thread(warp, lane) + r * g.block;
      if (v >= tile_v) return std::nullopt;
      return bytes(4 * v);
    };
    const std::int64_t sw = g.smem_w, per_struct = F / sw;
    auto shared_struct = [g, F, sw, per_struct, thread, bytes](int warp, int lane, std::int64_t it) -> Address {
      const std::int64_t k = it / per_struct, j = it % per_struct;
      return bytes((k * g.block + thread(warp, lane)) * F + j * sw);
    };
    if (g.reads_struct()) {
      struct_in.push_back({"load AoS tile", 16, struct_kind_in, rounds, global});
      a.shared.push_back({"store AoS tile", 16, AccessKind::store, rounds, shared_tile});
      a.shared.push_back({"load own structs", static_cast<int>(sw * 4), AccessKind::load, g.items * per_struct, shared_struct});
    }
    if (g.writes_struct()) {
      a.shared.push_back({"store own structs", static_cast<int>(sw * 4), AccessKind::store, g.items * per_struct, shared_struct});
      a.shared.push_back({"load AoS tile", 16, AccessKind::load, rounds, shared_tile});
      struct_out.push_back({"store AoS tile", 16, struct_kind_out, rounds, global});
    }
    break;
  }
  case AosSoaLayout::aos_vec: {
    const std::int64_t v = g.vec_v, count = g.items * F / v;
    auto address = [g, F, v, tile_base, thread, bytes](int warp, int lane, std::int64_t q) -> Address {
      return bytes((tile_base + thread(warp, lane) * g.items) * F + q * v);
    };
    if (g.reads_struct()) struct_in.push_back({"load structs", static_cast<int>(v * 4), struct_kind_in, count, address});
    if (g.writes_struct()) struct_out.push_back({"store structs", static_cast<int>(v * 4), struct_kind_out, count, address});
    if (has_scalar)
      scalar.push_back({g.op == AosSoaOp::write ? "load scalars" : "store sums", static_cast<int>(g.soa_w * 4), scalar_kind,
                        g.items / g.soa_w, [g, tile_base, thread, bytes](int warp, int lane, std::int64_t r) -> Address {
                          return bytes(tile_base + thread(warp, lane) * g.items + r * g.soa_w);
                        }});
    break;
  }
  }
  if (has_scalar && scalar.empty()) // aos, aos_ldg, aos_smem: element k*BLOCK + tid, 4-byte coalesced
    scalar.push_back({g.op == AosSoaOp::write ? "load scalar" : "store sum", 4, scalar_kind, g.items,
                      [g, tile_base, thread, bytes](int warp, int lane, std::int64_t k) -> Address {
                        return bytes(tile_base + k * g.block + thread(warp, lane));
                      }});

  // Program order: loads, then stores.
  std::vector<GlobalInstruction> loads = g.op == AosSoaOp::write ? scalar : struct_in;
  for (auto& i : loads) a.global.push_back(i);
  if (g.op == AosSoaOp::read) a.global.insert(a.global.end(), scalar.begin(), scalar.end());
  a.global.insert(a.global.end(), struct_out.begin(), struct_out.end());
  // aos and soa load and store every field of item k (round r) before the
  // next item.
  a.stores_iteration_major = true;
  a.loads_iteration_major = true;

  // Traffic: every array's footprint once; requests from the representative
  // block scaled to the launch (field loads of AoS request F times the bytes
  // they use; the L1/L2 keep the rest of each sector for the other fields).
  const double nb = static_cast<double>(g.blocks);
  const double struct_bytes = static_cast<double>(g.n * F) * 4;
  const double scalar_bytes = static_cast<double>(g.n) * 4;
  auto sum_requested = [&](const std::vector<GlobalInstruction>& list) {
    double b = 0;
    for (const auto& i : list) b += touched_bytes(i, warps);
    return b * nb;
  };
  if (g.reads_struct()) a.arrays.push_back({"structs in", struct_bytes, sum_requested(struct_in), 0, false});
  if (g.writes_struct()) a.arrays.push_back({"structs out", struct_bytes, sum_requested(struct_out), 0, true});
  if (has_scalar)
    a.arrays.push_back({g.op == AosSoaOp::write ? "scalars in" : "sums out", scalar_bytes, sum_requested(scalar), 0,
                        g.op == AosSoaOp::read});

  // Staging through shared memory puts a __syncthreads between the global
  // and the shared phase; the other layouts let each warp run on its own.
  a.barrier_between_load_and_compute = g.layout == AosSoaLayout::aos_smem;

  // Loads in flight per thread: every load is issued before the first use.
  double load_count = 0, load_bytes = 0;
  for (const auto& i : loads) {
    load_count += static_cast<double>(i.iterations);
    load_bytes += static_cast<double>(i.iterations) * i.width_bytes;
  }
  a.loads_in_flight_per_thread = std::max(1.0, load_count);
  a.bytes_per_load = load_count > 0 ? load_bytes / load_count : 4;

  // Issued instructions per thread: memory instructions with ~4 of index
  // arithmetic and guard each, the arithmetic (one op per field and item),
  // and the launch overhead.
  double memory = 0;
  for (const auto& i : a.global) memory += static_cast<double>(i.iterations);
  for (const auto& i : a.shared) memory += static_cast<double>(i.iterations);
  const double per_thread = 5.0 * memory + static_cast<double>(g.items * F) + 20.0;
  a.warp_instructions_per_block = per_thread * warps;
  // read: F - 1 adds per item; write: F multiplies; readwrite: F FMAs.
  a.fp32_instructions_per_block = static_cast<double>(g.items * (g.op == AosSoaOp::read ? F - 1 : F)) * warps;
  return a;
}

} // namespace memtune::templates
