// The poison of outputs, per element type: what the GPU memset writes is what
// capture_reference and the reduced comparison recognise.
#include <memtune/description/poison.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace memtune;
using namespace memtune::description_detail;

namespace {

// An output of `count` elements after the GPU's poisoning memset.
std::vector<std::byte> poisoned(ElementType type, std::size_t count) {
  std::vector<std::byte> bytes(count * element_size(type));
  const PoisonPattern p = poison_pattern(type);
  if (p.word)
    for (std::size_t at = 0; at < bytes.size(); at += 4) std::memcpy(bytes.data() + at, &p.value, 4);
  else
    std::memset(bytes.data(), static_cast<int>(p.value), bytes.size());
  return bytes;
}

} // namespace

TEST_CASE("poison: every element type's poison is recognised, lane by lane, and a written value is not") {
  for (const char* name : {"float", "double", "half", "bfloat16", "int8", "uint16", "int32", "uint64", "float4", "half2",
                           "double2", "int4", "uchar4", "bfloat162"}) {
    CAPTURE(name);
    const ElementType type = *element_type_from_string(name);
    std::vector<std::byte> bytes = poisoned(type, 5);
    const std::int64_t lanes = 5 * lane_count(type);
    CHECK(poisoned_lanes(type, bytes) == lanes);
    // Write 1 into the first lane of element 2: one lane fewer.
    store_lane(lane_type(type), 1.0, bytes.data() + 2 * element_size(type));
    CHECK(poisoned_lanes(type, bytes) == lanes - 1);
    CHECK_FALSE(is_poisoned_lane(lane_type(type), bytes.data() + 2 * element_size(type)));
    // Floating lanes are NaN: never a value a kernel writes by right.
    if (is_floating(type)) CHECK(std::isnan(lane_value(lane_type(type), bytes.data())));
  }
  CHECK(poison_pattern(ElementType::f32).word);
  CHECK(poison_pattern(ElementType::f16).value == 0xFF); // 0xFFFF is a half NaN; 0xA5A5 would be -0.0224
  CHECK(poison_pattern(ElementType::i32).value == 0xA5);
  CHECK(poison_is_ambiguous(ElementType::u8));
  CHECK(poison_is_ambiguous(vector_type(ElementType::i16, 2)));
  CHECK_FALSE(poison_is_ambiguous(ElementType::i32));
  CHECK_FALSE(poison_is_ambiguous(ElementType::f16));
}
