#pragma once
// One warp-level memory instruction: the byte address each of the 32 lanes
// touches (inactive lanes have none), the access width and the direction.
// Both the shared-memory bank simulator and the global coalescing model read it.
//
//   WarpAccess a = WarpAccess::strided(0, 8, 8);   // float2 per lane, consecutive
//   a.lanes[5] == 40
#include <array>
#include <cstdint>
#include <functional>
#include <optional>

namespace memtune::model {

inline constexpr int warp_lanes = 32;

enum class AccessKind { load, store };

struct WarpAccess {
  std::array<std::optional<std::uint64_t>, warp_lanes> lanes{}; // [bytes] address per lane; nullopt = inactive
  int width_bytes = 4;                                           // 1, 2, 4, 8 or 16 (char .. float4)
  AccessKind kind = AccessKind::load;

  // lane i -> base + i * stride_bytes, all lanes active.
  static WarpAccess strided(std::uint64_t base, std::int64_t stride_bytes, int width_bytes,
                            AccessKind kind = AccessKind::load);
  // lane i -> address(i); nullopt leaves the lane inactive.
  static WarpAccess from_function(const std::function<std::optional<std::uint64_t>(int lane)>& address,
                                  int width_bytes, AccessKind kind = AccessKind::load);

  // Keeps only the lanes whose bit is set in `mask` (bit i = lane i), like a
  // divergent branch would.
  [[nodiscard]] WarpAccess masked(std::uint32_t mask) const;
  [[nodiscard]] int active_lanes() const;
};

// Throws std::invalid_argument when the width is not 1, 2, 4, 8 or 16 or a lane's
// address is not aligned to the width (the hardware faults on that).
void check_warp_access(const WarpAccess& a);

} // namespace memtune::model
