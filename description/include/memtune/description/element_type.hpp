#pragma once
// Element types of kernel arguments (buffers, scalars, __constant__ symbols),
// as a kernel description names them and as C++ spells them.
//
//   element_type_from_string("float")   -> ElementType::f32
//   element_type_from_string("half2")   -> vector_type(ElementType::f16, 2): 4 bytes, 2 lanes
//   element_type_of<const float*>()     -> ElementType::f32 (pointee)
//
// A CUDA vector type (float4, half2, int2, double2, uchar4, ...) is its lane
// type and a lane count (2, 3 or 4) packed in one ElementType value: a
// buffer of n float4 is n elements of 16 bytes, filled and compared lane by
// lane. half and bfloat16 are stored as their 16 bits; the host converts
// them (half_from_double, double_from_half, ...), rounding to nearest even.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace memtune {

// The scalar types are the named values; a vector type is lane + 16 * lanes
// (make it with vector_type). The values are also the compare kernel's type
// codes (device_verifier.cpp): append, never renumber.
enum class ElementType : int { f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16 };

[[nodiscard]] ElementType vector_type(ElementType lane, int lanes); // lanes 1 (the lane type itself) to 4
[[nodiscard]] ElementType lane_type(ElementType type);             // float4 -> float; float -> float
[[nodiscard]] int lane_count(ElementType type);                    // float4 -> 4; float -> 1
[[nodiscard]] std::size_t element_size(ElementType type);          // [bytes] of one element, all lanes
[[nodiscard]] const char* to_string(ElementType type);             // "float", "int8", "half", "bfloat16", "float4", "half2"
// Accepts the names to_string gives and the C and CUDA spellings "int", "unsigned", "long long", "float32", "int32_t",
// "__half", "__nv_bfloat16", "__half2", "uint4", ...; nullopt for anything else.
[[nodiscard]] std::optional<ElementType> element_type_from_string(const std::string& text);
// Floating lanes: float, double, half, bfloat16 and their vectors.
[[nodiscard]] bool is_floating(ElementType type);
// Why `value` is not a value of `type`'s lanes, or nullopt where it is: not
// finite for a floating type, beyond its largest finite value ("70000 does
// not fit in half (largest 65504)"), not an integer or out of an integer
// type's range ("300 does not fit in uint8").
[[nodiscard]] std::optional<std::string> representable_violation(double value, ElementType type);
// The tolerance a comparison of this element type needs at least when the
// description gives none: the rounding of its significand (float 1e-5
// relative, half 1e-3, bfloat16 1e-2, double 1e-5 as float, integers exact).
[[nodiscard]] double default_relative_tolerance(ElementType type);

// IEEE binary16 and bfloat16 bits from a value (round to nearest even; NaN stays NaN) and back.
[[nodiscard]] std::uint16_t half_from_double(double value);
[[nodiscard]] double double_from_half(std::uint16_t bits);
[[nodiscard]] std::uint16_t bfloat16_from_double(double value);
[[nodiscard]] double double_from_bfloat16(std::uint16_t bits);

// The lane of `bytes` (element_size(lane_type) bytes) as a double, and back.
[[nodiscard]] double lane_value(ElementType lane, const std::byte* bytes);
void store_lane(ElementType lane, double value, std::byte* bytes);

// The ElementType of a C++ arithmetic type, or of a pointer's pointee.
template <class T> constexpr ElementType element_type_of() {
  using U = std::remove_cv_t<std::remove_pointer_t<std::remove_cvref_t<T>>>;
  if constexpr (std::is_same_v<U, float>) return ElementType::f32;
  else if constexpr (std::is_same_v<U, double>) return ElementType::f64;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 1) return ElementType::i8;
  else if constexpr (std::is_integral_v<U> && !std::is_signed_v<U> && sizeof(U) == 1) return ElementType::u8;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 2) return ElementType::i16;
  else if constexpr (std::is_integral_v<U> && !std::is_signed_v<U> && sizeof(U) == 2) return ElementType::u16;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 4) return ElementType::i32;
  else if constexpr (std::is_integral_v<U> && !std::is_signed_v<U> && sizeof(U) == 4) return ElementType::u32;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U> && sizeof(U) == 8) return ElementType::i64;
  else if constexpr (std::is_integral_v<U> && !std::is_signed_v<U> && sizeof(U) == 8) return ElementType::u64;
  else static_assert(sizeof(U) == 0, "memtune: not an element type (float, double or an integer of 1-8 bytes)");
}

} // namespace memtune
