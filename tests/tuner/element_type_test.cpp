#include <memtune/description/element_type.hpp>

#include <doctest/doctest.h>

#include <cstdint>

using namespace memtune;

TEST_CASE("element types: sizes, names and the C spellings a description may use") {
  for (const ElementType t : {ElementType::f32, ElementType::f64, ElementType::i8, ElementType::u8, ElementType::i16,
                              ElementType::u16, ElementType::i32, ElementType::u32, ElementType::i64, ElementType::u64}) {
    CAPTURE(to_string(t));
    CHECK(element_type_from_string(to_string(t)) == t);
  }
  CHECK(element_size(ElementType::f32) == 4);
  CHECK(element_size(ElementType::f64) == 8);
  CHECK(element_size(ElementType::u8) == 1);
  CHECK(element_size(ElementType::i16) == 2);
  CHECK(element_size(ElementType::u64) == 8);
  CHECK(element_type_from_string("int") == ElementType::i32);
  CHECK(element_type_from_string("unsigned") == ElementType::u32);
  CHECK(element_type_from_string("long long") == ElementType::i64);
  CHECK(element_type_from_string("float64") == ElementType::f64);
  CHECK(element_type_from_string("uint8_t") == ElementType::u8);
  CHECK_FALSE(element_type_from_string("float3").has_value());
  CHECK_FALSE(element_type_from_string("Float").has_value());
  CHECK(is_floating(ElementType::f64));
  CHECK_FALSE(is_floating(ElementType::i32));
}

TEST_CASE("element_type_of reads C++ types and pointees") {
  static_assert(element_type_of<float>() == ElementType::f32);
  static_assert(element_type_of<const double*>() == ElementType::f64);
  static_assert(element_type_of<int>() == ElementType::i32);
  static_assert(element_type_of<unsigned char*>() == ElementType::u8);
  static_assert(element_type_of<std::int64_t>() == ElementType::i64);
  static_assert(element_type_of<const std::uint16_t&>() == ElementType::u16);
  CHECK(element_type_of<long long>() == ElementType::i64);
}
