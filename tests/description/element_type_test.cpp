#include <memtune/description/element_type.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

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
  CHECK_FALSE(element_type_from_string("float5").has_value());
  CHECK_FALSE(element_type_from_string("half1").has_value());
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

TEST_CASE("element types: half, bfloat16 and the CUDA vector types") {
  CHECK(element_type_from_string("half") == ElementType::f16);
  CHECK(element_type_from_string("__half") == ElementType::f16);
  CHECK(element_type_from_string("__nv_bfloat16") == ElementType::bf16);
  CHECK(element_size(ElementType::f16) == 2);
  CHECK(element_size(ElementType::bf16) == 2);
  const auto half2 = element_type_from_string("half2");
  REQUIRE(half2);
  CHECK(lane_type(*half2) == ElementType::f16);
  CHECK(lane_count(*half2) == 2);
  CHECK(element_size(*half2) == 4);
  CHECK(element_type_from_string("__half2") == half2);
  CHECK(element_type_from_string("__nv_bfloat162") == vector_type(ElementType::bf16, 2));
  CHECK(element_type_from_string("float4") == vector_type(ElementType::f32, 4));
  CHECK(element_size(vector_type(ElementType::f32, 4)) == 16);
  CHECK(element_type_from_string("double2") == vector_type(ElementType::f64, 2));
  CHECK(element_type_from_string("int4") == vector_type(ElementType::i32, 4));
  CHECK(element_type_from_string("uchar4") == vector_type(ElementType::u8, 4));
  CHECK(element_type_from_string("longlong2") == vector_type(ElementType::i64, 2));
  CHECK(element_size(vector_type(ElementType::i64, 2)) == 16);
  CHECK(element_type_from_string("float3") == vector_type(ElementType::f32, 3));
  for (const char* name : {"half2", "float4", "int2", "ushort4", "bfloat162", "double3"}) {
    CAPTURE(name);
    const auto t = element_type_from_string(name);
    REQUIRE(t);
    CHECK(std::string(to_string(*t)) == name);
    CHECK(is_floating(*t) == is_floating(lane_type(*t)));
  }
  CHECK(lane_count(ElementType::f32) == 1);
  CHECK(lane_type(ElementType::u64) == ElementType::u64);
  CHECK(vector_type(ElementType::f32, 1) == ElementType::f32);
  CHECK_THROWS_AS((void)vector_type(ElementType::f32, 5), std::invalid_argument);
  CHECK_THROWS_AS((void)vector_type(vector_type(ElementType::f32, 2), 2), std::invalid_argument);
  CHECK(is_floating(ElementType::f16));
  CHECK(is_floating(ElementType::bf16));
  CHECK(default_relative_tolerance(ElementType::f16) == doctest::Approx(1e-3));
  CHECK(default_relative_tolerance(vector_type(ElementType::bf16, 2)) == doctest::Approx(1e-2));
  CHECK(default_relative_tolerance(ElementType::i32) == 0.0);
}

TEST_CASE("half and bfloat16: the bits a GPU stores, rounded to nearest even") {
  CHECK(half_from_double(1.0) == 0x3C00);
  CHECK(half_from_double(-2.0) == 0xC000);
  CHECK(half_from_double(0.0) == 0x0000);
  CHECK(half_from_double(65504.0) == 0x7BFF);  // the largest half
  CHECK(half_from_double(65520.0) == 0x7C00);  // rounds to infinity
  CHECK(half_from_double(1e6) == 0x7C00);
  CHECK(half_from_double(std::ldexp(1.0, -24)) == 0x0001); // the smallest subnormal
  CHECK(half_from_double(1.0 + std::ldexp(1.0, -11)) == 0x3C00); // a tie rounds to even (down)
  CHECK(half_from_double(1.0 + 3 * std::ldexp(1.0, -11)) == 0x3C02); // a tie rounds to even (up)
  CHECK((half_from_double(std::nan("")) & 0x7C00) == 0x7C00);
  CHECK(std::isnan(double_from_half(half_from_double(std::nan("")))));
  CHECK(double_from_half(0x3C00) == 1.0);
  CHECK(double_from_half(0x0001) == std::ldexp(1.0, -24));
  CHECK(double_from_half(0x7C00) == INFINITY);
  for (double v : {0.1, -0.75, 3.14159, 1000.5, -0.01, 6e-5}) {
    CAPTURE(v);
    CHECK(std::fabs(double_from_half(half_from_double(v)) - v) <= std::fabs(v) * std::ldexp(1.0, -11) + 3e-8);
    CHECK(std::fabs(double_from_bfloat16(bfloat16_from_double(v)) - v) <= std::fabs(v) * std::ldexp(1.0, -8));
  }
  CHECK(bfloat16_from_double(1.0) == 0x3F80);
  CHECK(bfloat16_from_double(-1.0) == 0xBF80);
  CHECK(double_from_bfloat16(0x3F80) == 1.0);
  CHECK(std::isnan(double_from_bfloat16(bfloat16_from_double(std::nan("")))));
  std::byte b[8];
  for (const ElementType lane : {ElementType::f32, ElementType::f64, ElementType::i8, ElementType::u16, ElementType::i64,
                                 ElementType::f16, ElementType::bf16}) {
    CAPTURE(to_string(lane));
    store_lane(lane, -3.0 + (lane == ElementType::u16 ? 10.0 : 0.0), b);
    CHECK(lane_value(lane, b) == -3.0 + (lane == ElementType::u16 ? 10.0 : 0.0));
  }
}

TEST_CASE("representable_violation: a value that a type's lanes cannot hold, and why") {
  CHECK(representable_violation(65504, ElementType::f16) == std::nullopt);
  CHECK(representable_violation(70000, vector_type(ElementType::f16, 2)) == "70000 does not fit in half (largest 65504)");
  CHECK(representable_violation(1e39, ElementType::bf16) == "1e+39 does not fit in bfloat16 (largest 3.4e38)");
  CHECK(representable_violation(1e39, ElementType::f64) == std::nullopt);
  CHECK(representable_violation(std::nan(""), ElementType::f32) == "the value is not finite");
  CHECK(representable_violation(300, ElementType::u8) == "300 does not fit in uint8");
  CHECK(representable_violation(-1, ElementType::u32) == "-1 does not fit in uint32");
  CHECK(representable_violation(1.5, ElementType::i32) == "1.5 is not an integer, but the type is int32");
}
