#include <memtune/model/sector_cache.hpp>

#include <memtune/model/global_access.hpp>

#include <algorithm>
#include <array>

namespace memtune::model {

int SectorCache::access(const WarpAccess& a) {
  check_warp_access(a);
  std::array<std::uint64_t, 2 * warp_lanes> sectors{};
  std::size_t n = 0;
  const auto width = static_cast<std::uint64_t>(a.width_bytes);
  for (const auto& lane : a.lanes)
    if (lane)
      for (std::uint64_t s = *lane / sector_bytes; s <= (*lane + width - 1) / sector_bytes; ++s) sectors[n++] = s;
  std::sort(sectors.begin(), sectors.begin() + static_cast<std::ptrdiff_t>(n));
  n = static_cast<std::size_t>(std::unique(sectors.begin(), sectors.begin() + static_cast<std::ptrdiff_t>(n)) -
                               sectors.begin());
  if (capacity_ <= 0) return static_cast<int>(n);
  int misses = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto [it, inserted] = last_use_.try_emplace(sectors[i], clock_);
    if (inserted || clock_ - it->second >= capacity_) ++misses;
    it->second = clock_++;
  }
  // Forget what can no longer hit, so a streaming warp's map stays small.
  if (last_use_.size() > static_cast<std::size_t>(4 * capacity_ + 64))
    std::erase_if(last_use_, [&](const auto& entry) { return clock_ - entry.second >= capacity_; });
  return misses;
}

} // namespace memtune::model
