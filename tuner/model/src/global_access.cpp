#include <memtune/model/global_access.hpp>

#include <set>

namespace memtune::model {

GlobalAccess analyze_global(const WarpAccess& access) {
  check_warp_access(access);
  std::set<std::uint64_t> sectors, lines, bytes;
  GlobalAccess g;
  const auto width = static_cast<std::uint64_t>(access.width_bytes);
  for (const auto& lane : access.lanes) {
    if (!lane) continue;
    g.bytes_requested += width;
    // Aligned accesses never straddle a sector (width <= 16 divides 32), but
    // walking every byte keeps the count right without relying on that.
    for (std::uint64_t b = *lane; b < *lane + width; ++b) {
      bytes.insert(b);
      sectors.insert(b / sector_bytes);
      lines.insert(b / line_bytes);
    }
  }
  g.sectors = static_cast<int>(sectors.size());
  g.lines = static_cast<int>(lines.size());
  g.unique_bytes = bytes.size();
  g.bytes_moved = sectors.size() * sector_bytes;
  g.efficiency = g.bytes_moved ? static_cast<double>(g.unique_bytes) / static_cast<double>(g.bytes_moved) : 0.0;
  return g;
}

} // namespace memtune::model
