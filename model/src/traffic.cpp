#include <memtune/model/traffic.hpp>

#include <memtune/model/global_access.hpp>

#include <algorithm>
#include <stdexcept>

namespace memtune::model {

Traffic estimate_traffic(const std::vector<ArrayTraffic>& arrays, std::size_t l2_bytes, double l2_usable_fraction) {
  if (l2_usable_fraction <= 0 || l2_usable_fraction > 1)
    throw std::invalid_argument("traffic: l2_usable_fraction must be in (0, 1]");
  const double usable = static_cast<double>(l2_bytes) * l2_usable_fraction;
  Traffic t;
  for (const auto& a : arrays) {
    if (a.footprint_bytes < 0 || a.requested_bytes < a.footprint_bytes)
      throw std::invalid_argument("traffic: array '" + a.name + "' requests fewer bytes than its footprint");
    ArrayTrafficResult r;
    r.name = a.name;
    r.l2_bytes = a.requested_bytes;
    r.reuse_hits_l2 = a.reuse_window_bytes <= usable;
    // Stores are merged in L2 and written back once; reads beyond the first
    // come from L2 only while the reuse window fits.
    r.dram_bytes = (a.written || r.reuse_hits_l2) ? a.footprint_bytes : a.requested_bytes;
    t.dram_bytes += r.dram_bytes;
    t.l2_bytes += r.l2_bytes;
    t.per_array.push_back(std::move(r));
  }
  return t;
}

ArrayTraffic halo_read_1d(std::string name, std::int64_t n, int elem_bytes, std::int64_t tile, std::int64_t halo,
                          double reuse_window_bytes) {
  if (n <= 0 || elem_bytes <= 0 || tile <= 0 || halo < 0)
    throw std::invalid_argument("halo_read_1d: n, elem_bytes and tile must be > 0, halo >= 0");
  const auto e = static_cast<std::uint64_t>(elem_bytes);
  const auto sector_count = [&](std::int64_t first, std::int64_t end) { // elements [first, end)
    const std::uint64_t lo = static_cast<std::uint64_t>(first) * e / sector_bytes;
    const std::uint64_t hi = (static_cast<std::uint64_t>(end) * e + sector_bytes - 1) / sector_bytes;
    return static_cast<double>(hi - lo);
  };
  ArrayTraffic a;
  a.name = std::move(name);
  a.footprint_bytes = sector_count(0, n) * static_cast<double>(sector_bytes);
  for (std::int64_t start = 0; start < n; start += tile) {
    const std::int64_t first = std::max<std::int64_t>(0, start - halo);
    const std::int64_t end = std::min<std::int64_t>(n, start + tile + halo);
    a.requested_bytes += sector_count(first, end) * static_cast<double>(sector_bytes);
  }
  a.reuse_window_bytes = halo > 0 ? reuse_window_bytes : 0;
  return a;
}

} // namespace memtune::model
