#pragma once
// Element types of kernel arguments (buffers, scalars, __constant__ symbols),
// as a kernel description names them and as C++ spells them.
//
//   element_type_from_string("float")  -> ElementType::f32
//   element_type_of<const float*>()    -> ElementType::f32 (pointee)
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace memtune {

enum class ElementType { f32, f64, i8, u8, i16, u16, i32, u32, i64, u64 };

[[nodiscard]] std::size_t element_size(ElementType type);         // [bytes]
[[nodiscard]] const char* to_string(ElementType type);             // "float", "double", "int8", ..., "uint64"
// Accepts the names to_string gives and the C spellings "int", "unsigned", "long long", "float32", "float64",
// "int32_t", ...; nullopt for anything else.
[[nodiscard]] std::optional<ElementType> element_type_from_string(const std::string& text);
[[nodiscard]] bool is_floating(ElementType type);

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
