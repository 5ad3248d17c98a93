#pragma once
// One warp's share of the cache its global loads go through (L1, or Kepler's
// read-only data cache for __ldg): which 32-byte sectors it still holds.
// A sector the warp touched recently is a hit and costs no L2 traffic; the
// rest are fetched from L2 (and then held).
//
// An AoS load of three floats per element reads one field per instruction:
// the first instruction of a warp touches 12 sectors (3 lines), the other two
// fields touch the same 12. With L1 caching them (every GPU since Volta) the
// L2 sees 12 sectors; with L1 off for global loads (Kepler's default) it sees
// 36, three times the bytes the warp uses.
//
//   SectorCache c(/*capacity_sectors*/ 128);
//   c.access(WarpAccess::strided(0, 12, 4));   // 12 misses
//   c.access(WarpAccess::strided(4, 12, 4));   // 0: the same sectors
//
// "Recently" is a reuse distance: a sector hits when fewer than `capacity`
// sector accesses of this warp came between its two uses (an LRU cache of
// that many sectors, up to the accesses that hit the same sector twice). The
// capacity is the warp's fair share: the cache's bytes over the warps that
// share it.
#include <memtune/model/warp_access.hpp>

#include <cstdint>
#include <unordered_map>

namespace memtune::model {

class SectorCache {
public:
  // capacity_sectors 0: the path caches nothing; every sector is a miss.
  explicit SectorCache(std::int64_t capacity_sectors) : capacity_(capacity_sectors) {}
  // The sectors of one warp-level load that miss; an access with no active
  // lane misses none. Throws std::invalid_argument on a malformed access.
  int access(const WarpAccess& access);
  [[nodiscard]] std::int64_t capacity() const { return capacity_; }

private:
  std::int64_t capacity_;
  std::int64_t clock_ = 0; // sector accesses so far
  std::unordered_map<std::uint64_t, std::int64_t> last_use_;
};

} // namespace memtune::model
