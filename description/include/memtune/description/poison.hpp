#pragma once
// Internal: the poison an output gets before every verified launch, and how
// to recognise it afterwards. A floating lane is poisoned with NaN (float:
// the quiet NaN 0x7FC00000; double, half, bfloat16: all bits set, a NaN in
// each), an integer lane with 0xA5 bytes. Reference and candidate get the
// same poison, so an element both leave untouched agrees (partial outputs).
#include <memtune/description/element_type.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace memtune::description_detail {

struct PoisonPattern {
  bool word = false;        // true: the 32-bit `value` repeated; false: the byte `value` repeated
  std::uint32_t value = 0;
};
[[nodiscard]] PoisonPattern poison_pattern(ElementType type);

// Whether one lane (element_size(lane) bytes) holds the poison.
[[nodiscard]] bool is_poisoned_lane(ElementType lane, const std::byte* bytes);

// The lanes of `bytes` (whole elements of `type`) that hold the poison.
[[nodiscard]] std::int64_t poisoned_lanes(ElementType type, std::span<const std::byte> bytes);

// Whether poisoned lanes may be real values, likely enough that only an
// output left entirely poisoned counts as unwritten: integers of 1 or 2 bytes.
[[nodiscard]] bool poison_is_ambiguous(ElementType type);

} // namespace memtune::description_detail
