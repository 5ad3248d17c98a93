#include <memtune/model/warp_access.hpp>

#include <stdexcept>
#include <string>

namespace memtune::model {

WarpAccess WarpAccess::strided(std::uint64_t base, std::int64_t stride_bytes, int width_bytes, AccessKind kind) {
  WarpAccess a;
  a.width_bytes = width_bytes;
  a.kind = kind;
  for (int i = 0; i < warp_lanes; ++i)
    a.lanes[static_cast<std::size_t>(i)] = base + static_cast<std::uint64_t>(stride_bytes * i);
  return a;
}

WarpAccess WarpAccess::from_function(const std::function<std::optional<std::uint64_t>(int)>& address,
                                     int width_bytes, AccessKind kind) {
  WarpAccess a;
  a.width_bytes = width_bytes;
  a.kind = kind;
  for (int i = 0; i < warp_lanes; ++i) a.lanes[static_cast<std::size_t>(i)] = address(i);
  return a;
}

WarpAccess WarpAccess::masked(std::uint32_t mask) const {
  WarpAccess a = *this;
  for (int i = 0; i < warp_lanes; ++i)
    if (!(mask >> i & 1u)) a.lanes[static_cast<std::size_t>(i)].reset();
  return a;
}

int WarpAccess::active_lanes() const {
  int n = 0;
  for (const auto& l : lanes) n += l.has_value();
  return n;
}

void check_warp_access(const WarpAccess& a) {
  const int w = a.width_bytes;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
    throw std::invalid_argument("warp access width must be 1, 2, 4, 8 or 16 bytes, got " + std::to_string(w));
  for (int i = 0; i < warp_lanes; ++i) {
    const auto& l = a.lanes[static_cast<std::size_t>(i)];
    if (l && *l % static_cast<std::uint64_t>(a.width_bytes) != 0)
      throw std::invalid_argument("lane " + std::to_string(i) + " address " + std::to_string(*l) +
                                  " is not aligned to its " + std::to_string(a.width_bytes) +
                                  "-byte access (misaligned address fault on the GPU)");
  }
}

} // namespace memtune::model
