#pragma once
// Internal: host data for a kernel description's inputs, as Fill says.
#include <memtune/description/kernel_description.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune::description_detail {

// `count` elements of `type`, filled as `fill` says with request.seed (the
// i-th filled item of a run uses seed + i). Random fills are a counter-based
// hash of (seed, index): the same data whatever the thread count, and a
// float buffer with the default fill is exactly memtune::fill_random.
std::vector<std::byte> fill_host(const Fill& fill, ElementType type, std::int64_t count, const FillRequest& request);

// A fill as fill_rule.cuh computes it, value by value (memtune_fill_value's
// arguments): what the GPU's fill kernel (measure/device_fill.hpp) needs to
// write fill_host's bytes without them crossing the bus.
struct FillRule {
  int mode = 0;                        // MemtuneFillMode (fill_rule.cuh)
  int lane_bytes = 4;                  // integers and constants
  std::uint64_t key = 0;               // the splitmix64 of the seed
  double lo = 0, width = 0;            // float ranges
  std::uint64_t lo_bits = 0, span = 0; // integer ranges (low end, hi - lo); a constant's bits
  std::int64_t values = 0;             // lanes: count x lanes per element
};
// The rule of `count` elements of `type` filled as fill_host fills them;
// nullopt where only the host can: custom fills, sum_abs (a sum over every
// value), 16-bit float lanes.
std::optional<FillRule> fill_rule(const Fill& fill, ElementType type, std::int64_t count, std::uint64_t seed);
// Writes the rule's values to `out` (host memory) on every core.
void apply_fill_rule(const FillRule& rule, void* out);

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
