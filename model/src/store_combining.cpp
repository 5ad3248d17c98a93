#include <memtune/model/store_combining.hpp>

#include <memtune/model/global_access.hpp>

#include <algorithm>

namespace memtune::model {

std::int64_t StoreCombiner::store(const WarpAccess& access) {
  check_warp_access(access);
  if (access.kind != AccessKind::store) return 0;
  // The instruction's lines in address order, as L1 splits a request, each
  // with the sectors it writes there.
  std::vector<Held> lines;
  const auto width = static_cast<std::uint64_t>(access.width_bytes);
  for (const auto& lane : access.lanes)
    if (lane)
      for (std::uint64_t b = *lane / sector_bytes; b <= (*lane + width - 1) / sector_bytes; ++b)
        lines.push_back({b * sector_bytes / line_bytes, 1u << (b % (line_bytes / sector_bytes))});
  std::sort(lines.begin(), lines.end(), [](const Held& x, const Held& y) { return x.line < y.line; });
  std::vector<Held> merged;
  for (const Held& h : lines)
    if (!merged.empty() && merged.back().line == h.line) merged.back().sectors |= h.sectors;
    else merged.push_back(h);

  std::int64_t added = 0;
  if (window_ <= 0) {
    requests_ += static_cast<std::int64_t>(merged.size());
    return static_cast<std::int64_t>(merged.size());
  }
  for (const Held& h : merged) {
    const auto it = std::find_if(held_.begin(), held_.end(), [&](const Held& x) { return x.line == h.line; });
    Held now = h;
    if (it != held_.end() && (it->sectors & h.sectors) != 0) {
      now.sectors |= it->sectors; // combined: becomes the most recently used
      held_.erase(it);
    } else {
      ++added; // a new line, or other sectors of a held one: a request of its own
      if (it != held_.end()) held_.erase(it);
      else if (held_.size() == static_cast<std::size_t>(window_)) held_.erase(held_.begin());
    }
    held_.push_back(now);
  }
  requests_ += added;
  return added;
}

} // namespace memtune::model
