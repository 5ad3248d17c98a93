#pragma once
// Internal: host data for a kernel description's inputs, as Fill says.
#include <memtune/description/kernel_description.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune::description_detail {

// `count` elements of `type`, filled as `fill` says with request.seed (the
// i-th filled item of a run uses seed + i). Random fills are a counter-based
// hash of (seed, index): the same data whatever the thread count, and a
// float buffer with the default fill is exactly memtune::fill_random.
std::vector<std::byte> fill_host(const Fill& fill, ElementType type, std::int64_t count, const FillRequest& request);

// Calls f(T{}) with the C++ type of an element type: float, double or an
// integer (half, bfloat16 and vector types have none: their lanes go through
// lane_value / store_lane, element_type.hpp).
template <class F> decltype(auto) with_element_type(ElementType type, F&& f) {
  switch (type) {
  case ElementType::f16:
  case ElementType::bf16: throw std::logic_error(std::string("with_element_type of ") + to_string(type));
  case ElementType::f32: return f(float{});
  case ElementType::f64: return f(double{});
  case ElementType::i8: return f(std::int8_t{});
  case ElementType::u8: return f(std::uint8_t{});
  case ElementType::i16: return f(std::int16_t{});
  case ElementType::u16: return f(std::uint16_t{});
  case ElementType::i32: return f(std::int32_t{});
  case ElementType::u32: return f(std::uint32_t{});
  case ElementType::i64: return f(std::int64_t{});
  case ElementType::u64: return f(std::uint64_t{});
  }
  throw std::logic_error(std::string("with_element_type of ") + to_string(type));
}

} // namespace memtune::description_detail
