#include <memtune/probe/coalescing.hpp>

#include <memtune/model/warp_access.hpp>

#include <stdexcept>

namespace memtune::probe {

std::uint64_t coalescing_element(Coalescing probe, int s, std::uint64_t i) {
  const auto param = static_cast<std::uint64_t>(s);
  return probe == Coalescing::offset ? i + param : i * param;
}

model::GlobalAccess coalescing_warp_access(Coalescing probe, int s, std::uint64_t warp) {
  const model::WarpAccess a = model::WarpAccess::from_function(
      [&](int lane) -> std::optional<std::uint64_t> {
        return coalescing_element(probe, s, warp * model::warp_lanes + static_cast<std::uint64_t>(lane)) * 4;
      },
      4);
  return model::analyze_global(a);
}

double predict_coalescing_time(Coalescing probe, int s, std::uint64_t n, const Target& target) {
  if (!(target.dram_bandwidth_gbs > 0)) throw std::invalid_argument("coalescing model: the target has no DRAM bandwidth");
  constexpr int warps_per_block = coalescing_block_threads / model::warp_lanes;
  double sectors = 0;
  for (int w = 0; w < warps_per_block; ++w) sectors += coalescing_warp_access(probe, s, static_cast<std::uint64_t>(w)).sectors;
  sectors /= warps_per_block;
  const double warps = static_cast<double>(n) / model::warp_lanes;
  const double bytes = 2.0 * warps * sectors * static_cast<double>(model::sector_bytes); // read + write
  return bytes / (target.dram_bandwidth_gbs * 1e9);
}

} // namespace memtune::probe
