#include <memtune/description/element_type.hpp>

#include "compare_rule.cuh"

#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

namespace memtune {
namespace {

struct TypeInfo {
  ElementType type;
  const char* name;        // canonical, what to_string gives
  std::size_t size;
  const char* vector_stem; // the CUDA vector type's stem: float -> "float" (float2, float4), int8 -> "char"
};
constexpr std::array<TypeInfo, 12> kTypes{{{ElementType::f32, "float", 4, "float"},
                                           {ElementType::f64, "double", 8, "double"},
                                           {ElementType::i8, "int8", 1, "char"},
                                           {ElementType::u8, "uint8", 1, "uchar"},
                                           {ElementType::i16, "int16", 2, "short"},
                                           {ElementType::u16, "uint16", 2, "ushort"},
                                           {ElementType::i32, "int32", 4, "int"},
                                           {ElementType::u32, "uint32", 4, "uint"},
                                           {ElementType::i64, "int64", 8, "longlong"},
                                           {ElementType::u64, "uint64", 8, "ulonglong"},
                                           {ElementType::f16, "half", 2, "half"},
                                           {ElementType::bf16, "bfloat16", 2, "bfloat16"}}};
constexpr int kLaneStride = 16; // vector = lane + 16 * lanes

// The C and CUDA spellings people write, as the device sees them (LP64: long is 64 bits).
constexpr std::array<std::pair<const char*, ElementType>, 30> kAliases{{
    {"float32", ElementType::f32},        {"float64", ElementType::f64},
    {"char", ElementType::i8},            {"signed char", ElementType::i8},     {"int8_t", ElementType::i8},
    {"unsigned char", ElementType::u8},   {"uint8_t", ElementType::u8},
    {"short", ElementType::i16},          {"int16_t", ElementType::i16},
    {"unsigned short", ElementType::u16}, {"uint16_t", ElementType::u16},
    {"int", ElementType::i32},            {"int32_t", ElementType::i32},
    {"unsigned", ElementType::u32},       {"unsigned int", ElementType::u32},   {"uint32_t", ElementType::u32},
    {"long", ElementType::i64},           {"long long", ElementType::i64},      {"int64_t", ElementType::i64},
    {"unsigned long", ElementType::u64},  {"unsigned long long", ElementType::u64},
    {"uint64_t", ElementType::u64},       {"size_t", ElementType::u64},         {"ptrdiff_t", ElementType::i64},
    {"__half", ElementType::f16},         {"float16", ElementType::f16},
    {"__nv_bfloat16", ElementType::bf16}, {"nv_bfloat16", ElementType::bf16},  {"bf16", ElementType::bf16},
    {"__bf16", ElementType::bf16},
}};

// "float4", "half2", "bfloat162": every lane type, 2 to 4 lanes (CUDA has no half3; memtune takes it as 3 halves).
std::array<std::array<std::string, 3>, kTypes.size()> make_vector_names() {
  std::array<std::array<std::string, 3>, kTypes.size()> names;
  for (std::size_t t = 0; t < kTypes.size(); ++t)
    for (int lanes = 2; lanes <= 4; ++lanes) names[t][lanes - 2] = kTypes[t].vector_stem + std::to_string(lanes);
  return names;
}
const auto& vector_names() {
  static const auto names = make_vector_names();
  return names;
}

const TypeInfo& info(ElementType type) {
  for (const auto& t : kTypes)
    if (t.type == type) return t;
  throw std::logic_error("unknown element type " + std::to_string(static_cast<int>(type)));
}

std::size_t index_of(ElementType lane) { return static_cast<std::size_t>(&info(lane) - kTypes.data()); }

} // namespace

ElementType vector_type(ElementType lane, int lanes) {
  if (lane_count(lane) != 1 || lanes < 1 || lanes > 4)
    throw std::invalid_argument(std::string("no vector of ") + std::to_string(lanes) + " x " + to_string(lane));
  return lanes == 1 ? lane : static_cast<ElementType>(static_cast<int>(lane) + kLaneStride * lanes);
}
ElementType lane_type(ElementType type) { return static_cast<ElementType>(static_cast<int>(type) % kLaneStride); }
int lane_count(ElementType type) { return std::max(1, static_cast<int>(type) / kLaneStride); }
std::size_t element_size(ElementType type) { return info(lane_type(type)).size * static_cast<std::size_t>(lane_count(type)); }
bool is_floating(ElementType type) {
  const ElementType lane = lane_type(type);
  return lane == ElementType::f32 || lane == ElementType::f64 || lane == ElementType::f16 || lane == ElementType::bf16;
}

std::optional<std::string> representable_violation(double value, ElementType type) {
  const ElementType lane = lane_type(type); // a vector's lanes are filled one by one
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  if (is_floating(lane)) {
    if (!std::isfinite(value)) return "the value is not finite";
    if (lane == ElementType::f16 && std::fabs(value) > 65504.0)
      return std::string(text) + " does not fit in half (largest 65504)";
    // float and bfloat16 share float's exponent range: beyond it the value is infinite.
    if ((lane == ElementType::f32 || lane == ElementType::bf16) && std::fabs(value) > std::numeric_limits<float>::max())
      return std::string(text) + " does not fit in " + to_string(lane) + " (largest 3.4e38)";
    return std::nullopt;
  }
  if (value != std::floor(value)) return std::string(text) + " is not an integer, but the type is " + to_string(lane);
  const int bits = static_cast<int>(element_size(lane)) * 8;
  const bool is_signed = lane == ElementType::i8 || lane == ElementType::i16 || lane == ElementType::i32 ||
                         lane == ElementType::i64;
  const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi = is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  if (value < lo || value > hi) {
    std::snprintf(text, sizeof text, "%.0f", value); // an integer, every digit
    return std::string(text) + " does not fit in " + to_string(lane);
  }
  return std::nullopt;
}

const char* to_string(ElementType type) {
  const int lanes = lane_count(type);
  if (lanes == 1) return info(type).name;
  return vector_names()[index_of(lane_type(type))][static_cast<std::size_t>(lanes - 2)].c_str();
}

std::optional<ElementType> element_type_from_string(const std::string& text) {
  for (const auto& t : kTypes)
    if (text == t.name) return t.type;
  for (const auto& [alias, type] : kAliases)
    if (text == alias) return type;
  const std::string bare = text.rfind("__", 0) == 0 ? text.substr(2) : text; // __half2, __nv_bfloat162
  const std::string stem = bare.rfind("nv_bfloat16", 0) == 0 ? "bfloat16" + bare.substr(11) : bare;
  for (std::size_t t = 0; t < kTypes.size(); ++t)
    for (int lanes = 2; lanes <= 4; ++lanes)
      if (stem == vector_names()[t][static_cast<std::size_t>(lanes - 2)]) return vector_type(kTypes[t].type, lanes);
  return std::nullopt;
}

double default_relative_tolerance(ElementType type) {
  switch (lane_type(type)) {
  case ElementType::f16: return 1e-3;  // 11-bit significand: 4.9e-4 per rounding
  case ElementType::bf16: return 1e-2; // 8-bit significand: 3.9e-3 per rounding
  case ElementType::f32:
  case ElementType::f64: return 1e-5;
  default: return 0.0;
  }
}

std::uint16_t half_from_double(double value) {
  const float f = static_cast<float>(value);
  const auto x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000U;
  const std::uint32_t abs = x & 0x7FFFFFFFU;
  if (abs > 0x7F800000U) return static_cast<std::uint16_t>(sign | 0x7E00U);  // NaN
  if (abs >= 0x477FF000U) return static_cast<std::uint16_t>(sign | 0x7C00U); // rounds to infinity (65520 and up)
  if (abs < 0x38800000U) {                                                   // below 2^-14: subnormal half or zero
    const float scaled = std::fabs(f) * 16777216.0F;                          // units of 2^-24, rounded to nearest even
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t rounded = abs + 0xFFFU + ((abs >> 13) & 1U); // round to nearest even at bit 13
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000U) >> 13));
}

double double_from_half(std::uint16_t bits) { return memtune_half_value(bits); }

std::uint16_t bfloat16_from_double(double value) {
  const auto x = std::bit_cast<std::uint32_t>(static_cast<float>(value));
  if ((x & 0x7FFFFFFFU) > 0x7F800000U) return static_cast<std::uint16_t>((x >> 16) | 0x40U); // NaN stays quiet NaN
  return static_cast<std::uint16_t>((x + 0x7FFFU + ((x >> 16) & 1U)) >> 16);
}

double double_from_bfloat16(std::uint16_t bits) { return memtune_bfloat16_value(bits); }

double lane_value(ElementType lane, const std::byte* bytes) {
  if (lane_count(lane) != 1) throw std::logic_error(std::string("lane_value of ") + to_string(lane));
  return memtune_lane_value(bytes, static_cast<int>(lane), 0);
}

void store_lane(ElementType lane, double value, std::byte* bytes) {
  const auto store = [&]<class T>(T x) { std::memcpy(bytes, &x, sizeof x); };
  switch (lane) {
  case ElementType::f32: return store(static_cast<float>(value));
  case ElementType::f64: return store(value);
  case ElementType::i8: return store(static_cast<std::int8_t>(value));
  case ElementType::u8: return store(static_cast<std::uint8_t>(value));
  case ElementType::i16: return store(static_cast<std::int16_t>(value));
  case ElementType::u16: return store(static_cast<std::uint16_t>(value));
  case ElementType::i32: return store(static_cast<std::int32_t>(value));
  case ElementType::u32: return store(static_cast<std::uint32_t>(value));
  case ElementType::i64: return store(static_cast<std::int64_t>(value));
  case ElementType::u64: return store(static_cast<std::uint64_t>(value));
  case ElementType::f16: return store(half_from_double(value));
  case ElementType::bf16: return store(bfloat16_from_double(value));
  }
  throw std::logic_error(std::string("store_lane of ") + to_string(lane));
}

} // namespace memtune
