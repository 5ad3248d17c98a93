#include <memtune/description/poison.hpp>

#include <cmath>
#include <cstring>

namespace memtune::description_detail {
namespace {

constexpr std::uint32_t kFloatNaN = 0x7FC00000U; // a quiet NaN, as the templates always poisoned
constexpr std::uint8_t kAllOnes = 0xFF;          // 0xFF...FF is a NaN as a double, a half and a bfloat16
constexpr std::uint8_t kIntegerPoison = 0xA5;

} // namespace

PoisonPattern poison_pattern(ElementType type) {
  const ElementType lane = lane_type(type);
  if (lane == ElementType::f32) return {true, kFloatNaN};
  if (is_floating(lane)) return {false, kAllOnes};
  return {false, kIntegerPoison};
}

bool is_poisoned_lane(ElementType lane, const std::byte* bytes) {
  if (is_floating(lane)) return std::isnan(lane_value(lane, bytes)); // any NaN: a kernel never writes one by right
  for (std::size_t i = 0; i < element_size(lane); ++i)
    if (std::to_integer<std::uint8_t>(bytes[i]) != kIntegerPoison) return false;
  return true;
}

std::int64_t poisoned_lanes(ElementType type, std::span<const std::byte> bytes) {
  const ElementType lane = lane_type(type);
  const std::size_t lane_bytes = element_size(lane);
  std::int64_t n = 0;
  for (std::size_t at = 0; at + lane_bytes <= bytes.size(); at += lane_bytes) n += is_poisoned_lane(lane, bytes.data() + at) ? 1 : 0;
  return n;
}

bool poison_is_ambiguous(ElementType type) { return !is_floating(type) && element_size(lane_type(type)) < 4; }

} // namespace memtune::description_detail
