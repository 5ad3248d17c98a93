#include <memtune/model/global_replay.hpp>

#include <memtune/model/global_access.hpp>
#include <memtune/model/iteration_sample.hpp>
#include <memtune/model/sector_cache.hpp>
#include <memtune/model/store_combining.hpp>

#include <algorithm>
#include <unordered_set>

namespace memtune {
namespace {

model::WarpAccess warp_access(const GlobalInstruction& ins, int warp, std::int64_t it) {
  return model::WarpAccess::from_function([&](int lane) { return ins.address(warp, lane, it); }, ins.width_bytes,
                                          ins.kind);
}

// One warp's state while its instructions are replayed in program order.
struct WarpReplay {
  model::SectorCache l1;
  model::SectorCache read_only;
  model::StoreCombiner combiner;
  GlobalTraffic& t;

  void issue(const GlobalInstruction& ins, int warp, std::int64_t it, double weight) {
    const model::WarpAccess access = warp_access(ins, warp, it);
    if (access.active_lanes() == 0) return;
    const model::GlobalAccess g = model::analyze_global(access);
    const double w = weight * static_cast<double>(ins.repeat);
    // A broadcast (lanes reading one word) wastes nothing: distinct bytes,
    // as GlobalAccess::efficiency counts them, so efficiency stays <= 1.
    t.requested += static_cast<double>(g.unique_bytes) * w;
    t.moved += static_cast<double>(g.bytes_moved) * w;
    t.l1_wavefronts += static_cast<double>(std::max<std::uint64_t>(
                           static_cast<std::uint64_t>(g.lines), (g.bytes_requested + model::line_bytes - 1) / model::line_bytes)) *
                       w;
    if (ins.kind == model::AccessKind::store) {
      t.stores_moved += static_cast<double>(g.bytes_moved) * w;
      t.write_requests += static_cast<double>(combiner.store(access)) * w;
      return;
    }
    int misses = g.sectors;
    if (ins.path == GlobalPath::standard) misses = l1.access(access);
    else if (ins.path == GlobalPath::read_only) misses = read_only.access(access);
    const double l2 = static_cast<double>(misses) * static_cast<double>(model::sector_bytes) * w;
    t.l2_load_bytes += l2;
    if (ins.shared_by_blocks > 0) t.l2_load_bytes_shared_by_blocks += l2;
  }
};

// Each warp's global instructions in program order: instruction by
// instruction, each over its iterations, or (iteration-major) the loads or
// the stores interleaved iteration by iteration, as in a loop whose body
// touches every field.
void replay_warp(const AccessPattern& pattern, int warp, const GlobalCaching& caching, GlobalTraffic& t) {
  WarpReplay r{model::SectorCache(caching.l1_sectors_per_warp), model::SectorCache(caching.read_only_sectors_per_warp),
               model::StoreCombiner(caching.write_combining_lines), t};
  const auto iteration_major = [&](const GlobalInstruction& ins) {
    return ins.kind == model::AccessKind::store ? pattern.stores_iteration_major : pattern.loads_iteration_major;
  };
  const auto replay_group = [&](model::AccessKind kind) {
    std::int64_t longest = 0;
    for (const auto& ins : pattern.global)
      if (ins.kind == kind && ins.repeat > 0) longest = std::max(longest, ins.iterations);
    const model::IterationSample sample = model::sample_iterations(longest);
    for (const auto& run : sample.runs)
      for (std::int64_t it = run.first; it < run.first + run.count; ++it)
        for (const auto& ins : pattern.global)
          if (ins.kind == kind && ins.repeat > 0 && it < ins.iterations) r.issue(ins, warp, it, sample.weight);
  };
  // Loads come before stores in every template's program order.
  for (const model::AccessKind kind : {model::AccessKind::load, model::AccessKind::store}) {
    const bool grouped = kind == model::AccessKind::store ? pattern.stores_iteration_major : pattern.loads_iteration_major;
    if (grouped) {
      replay_group(kind);
      continue;
    }
    for (const auto& ins : pattern.global) {
      if (ins.kind != kind || ins.repeat <= 0 || iteration_major(ins)) continue;
      const model::IterationSample sample = model::sample_iterations(ins.iterations);
      for (const auto& run : sample.runs)
        for (std::int64_t it = run.first; it < run.first + run.count; ++it) r.issue(ins, warp, it, sample.weight);
    }
  }
}

} // namespace

GlobalCaching GlobalCaching::for_target(const Target& target, int resident_warps, std::size_t smem_per_sm) {
  GlobalCaching c;
  const auto warps = static_cast<std::int64_t>(std::max(1, resident_warps));
  const auto sector = static_cast<std::int64_t>(model::sector_bytes);
  // L1 and shared memory share one array since Volta (and on Kepler): what the
  // resident blocks' shared memory leaves is the L1.
  const std::int64_t l1_bytes =
      std::max<std::int64_t>(0, static_cast<std::int64_t>(target.l1_bytes) - static_cast<std::int64_t>(smem_per_sm));
  if (target.l1_caches_global_loads) c.l1_sectors_per_warp = l1_bytes / warps / sector;
  const std::int64_t read_only_bytes =
      target.read_only_cache_bytes > 0 ? static_cast<std::int64_t>(target.read_only_cache_bytes) : l1_bytes;
  c.read_only_sectors_per_warp = read_only_bytes / warps / sector;
  c.write_combining_lines = target.l1_write_combining_lines;
  return c;
}

GlobalTraffic replay_global(const AccessPattern& pattern, int warps_per_block, const GlobalCaching& caching) {
  GlobalTraffic t;
  for (int w = 0; w < warps_per_block; ++w) replay_warp(pattern, w, caching, t);
  // The block's distinct sectors of the loads every block shares: what one
  // SM's L1 must hold for its later blocks (sampled iterations weighted as
  // in the replay; the templates' shared loads touch new addresses each
  // iteration, so a sample's distinct sectors scale with its weight).
  for (const auto& ins : pattern.global) {
    if (ins.shared_by_blocks <= 0 || ins.kind != model::AccessKind::load || ins.repeat <= 0) continue;
    std::unordered_set<std::uint64_t> sectors;
    const model::IterationSample sample = model::sample_iterations(ins.iterations);
    for (int w = 0; w < warps_per_block; ++w)
      for (const auto& run : sample.runs)
        for (std::int64_t it = run.first; it < run.first + run.count; ++it)
          for (int lane = 0; lane < 32; ++lane)
            if (const auto a = ins.address(w, lane, it))
              for (std::uint64_t b = *a / model::sector_bytes; b <= (*a + ins.width_bytes - 1) / model::sector_bytes; ++b)
                sectors.insert(b);
    t.shared_by_blocks_footprint +=
        static_cast<double>(sectors.size()) * static_cast<double>(model::sector_bytes) * sample.weight;
  }
  return t;
}

double touched_bytes(const GlobalInstruction& ins, int warps_per_block) {
  double bytes = 0;
  const model::IterationSample sample = model::sample_iterations(ins.iterations);
  for (int w = 0; w < warps_per_block; ++w)
    for (const auto& run : sample.runs)
      for (std::int64_t it = run.first; it < run.first + run.count; ++it) {
        const model::WarpAccess access = warp_access(ins, w, it);
        if (access.active_lanes() == 0) continue;
        bytes += static_cast<double>(model::analyze_global(access).bytes_moved);
      }
  return bytes * sample.weight * static_cast<double>(ins.repeat);
}

} // namespace memtune
