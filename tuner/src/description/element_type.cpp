#include <memtune/description/element_type.hpp>

#include <array>
#include <stdexcept>
#include <utility>

namespace memtune {
namespace {

struct TypeInfo {
  ElementType type;
  const char* name; // canonical, what to_string gives
  std::size_t size;
};
constexpr std::array<TypeInfo, 10> kTypes{{{ElementType::f32, "float", 4},
                                           {ElementType::f64, "double", 8},
                                           {ElementType::i8, "int8", 1},
                                           {ElementType::u8, "uint8", 1},
                                           {ElementType::i16, "int16", 2},
                                           {ElementType::u16, "uint16", 2},
                                           {ElementType::i32, "int32", 4},
                                           {ElementType::u32, "uint32", 4},
                                           {ElementType::i64, "int64", 8},
                                           {ElementType::u64, "uint64", 8}}};

// The C and CUDA spellings people write, as the device sees them (LP64: long is 64 bits).
constexpr std::array<std::pair<const char*, ElementType>, 24> kAliases{{
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
}};

const TypeInfo& info(ElementType type) {
  for (const auto& t : kTypes)
    if (t.type == type) return t;
  throw std::logic_error("unknown element type");
}

} // namespace

std::size_t element_size(ElementType type) { return info(type).size; }
const char* to_string(ElementType type) { return info(type).name; }
bool is_floating(ElementType type) { return type == ElementType::f32 || type == ElementType::f64; }

std::optional<ElementType> element_type_from_string(const std::string& text) {
  for (const auto& t : kTypes)
    if (text == t.name) return t.type;
  for (const auto& [alias, type] : kAliases)
    if (text == alias) return type;
  return std::nullopt;
}

} // namespace memtune
