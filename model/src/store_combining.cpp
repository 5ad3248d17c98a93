#include <memtune/model/store_combining.hpp>

#include <memtune/model/global_access.hpp>

#include <algorithm>

namespace memtune::model {

std::int64_t StoreCombiner::store(const WarpAccess& access) {
  check_warp_access(access);
  if (access.kind != AccessKind::store) return 0;
  // The instruction's lines in address order, as L1 splits a request.
  std::vector<std::uint64_t> lines;
  const auto width = static_cast<std::uint64_t>(access.width_bytes);
  for (const auto& lane : access.lanes)
    if (lane)
      for (std::uint64_t l = *lane / line_bytes; l <= (*lane + width - 1) / line_bytes; ++l) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  lines.erase(std::unique(lines.begin(), lines.end()), lines.end());

  std::int64_t added = 0;
  if (window_ <= 0) {
    requests_ += static_cast<std::int64_t>(lines.size());
    return static_cast<std::int64_t>(lines.size());
  }
  for (const std::uint64_t line : lines) {
    const auto it = std::find(held_.begin(), held_.end(), line);
    if (it != held_.end()) {
      held_.erase(it); // combined: becomes the most recently used
    } else {
      ++added;
      if (held_.size() == static_cast<std::size_t>(window_)) held_.erase(held_.begin());
    }
    held_.push_back(line);
  }
  requests_ += added;
  return added;
}

} // namespace memtune::model
