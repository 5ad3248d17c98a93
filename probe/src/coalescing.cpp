#include <memtune/probe/coalescing.hpp>

#include <memtune/model/warp_access.hpp>

#include <stdexcept>

namespace memtune::probe {

std::uint64_t coalescing_element(Coalescing probe, int s, std::uint64_t i) {
  const auto param = static_cast<std::uint64_t>(s);
  return probe == Coalescing::offset ? i + param : i * param;
}

namespace {

// The addresses of one warp's access (each lane one float).
model::WarpAccess warp_addresses(Coalescing probe, int s, std::uint64_t warp) {
  return model::WarpAccess::from_function(
      [&](int lane) -> std::optional<std::uint64_t> {
        return coalescing_element(probe, s, warp * model::warp_lanes + static_cast<std::uint64_t>(lane)) * 4;
      },
      4);
}

// Distinct `chunk`-byte pieces of memory the warp's lanes touch.
double chunks_touched(const model::WarpAccess& a, std::uint64_t chunk) {
  std::uint64_t seen[model::warp_lanes];
  int count = 0;
  for (const auto& lane : a.lanes) {
    if (!lane) continue;
    const std::uint64_t c = *lane / chunk;
    bool fresh = true;
    for (int k = 0; k < count && fresh; ++k) fresh = seen[k] != c;
    if (fresh) seen[count++] = c;
  }
  return count;
}

} // namespace

model::GlobalAccess coalescing_warp_access(Coalescing probe, int s, std::uint64_t warp) {
  return model::analyze_global(warp_addresses(probe, s, warp));
}

double predict_coalescing_time(Coalescing probe, int s, std::uint64_t n, const Target& target) {
  if (!(target.dram_bandwidth_gbs > 0)) throw std::invalid_argument("coalescing model: the target has no DRAM bandwidth");
  const double fetch = target.measured && target.measured->l2_fetch_bytes > static_cast<double>(model::sector_bytes)
                           ? target.measured->l2_fetch_bytes
                           : static_cast<double>(model::sector_bytes);
  constexpr int warps_per_block = coalescing_block_threads / model::warp_lanes;
  double read = 0, written = 0;
  for (int w = 0; w < warps_per_block; ++w) {
    const model::WarpAccess a = warp_addresses(probe, s, static_cast<std::uint64_t>(w));
    read += chunks_touched(a, static_cast<std::uint64_t>(fetch)) * fetch;
    written += static_cast<double>(model::analyze_global(a).sectors * model::sector_bytes);
  }
  const double warps = static_cast<double>(n) / model::warp_lanes;
  const double bytes = (read + written) / warps_per_block * warps;
  return bytes / (target.dram_bandwidth_gbs * 1e9);
}

} // namespace memtune::probe
