// The element rule of the GPU compare kernel, on the host: the same file is
// embedded in the kernel's source (device_verifier.cpp).
#include "description/src/compare_rule.cuh"

#include <memtune/description/element_type.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace memtune;

TEST_CASE("compare rule: abs + rel |ref|, NaN fails, and poison agrees only where the output is written in part") {
  CHECK(memtune_element_passes(1.0, 1.0, 0.0, 0.0, 0));
  CHECK(memtune_element_passes(1.001, 1.0, 0.0, 1e-3, 0));
  CHECK_FALSE(memtune_element_passes(1.002, 1.0, 0.0, 1e-3, 0));
  CHECK(memtune_element_passes(0.5, 0.0, 0.5, 0.0, 0));
  const double nan = std::nan("");
  CHECK_FALSE(memtune_element_passes(nan, 1.0, 1.0, 1.0, 0));   // an unwritten output
  CHECK_FALSE(memtune_element_passes(nan, nan, 1.0, 1.0, 0));   // whole outputs: the reference wrote everything
  CHECK(memtune_element_passes(nan, nan, 0.0, 0.0, 1));         // both left it poisoned
  CHECK_FALSE(memtune_element_passes(2.0, nan, 1e9, 1e9, 1));   // the candidate wrote where the reference did not
  CHECK_FALSE(memtune_element_passes(nan, 2.0, 1e9, 1e9, 1));   // and the other way round
}

TEST_CASE("compare rule: the lanes of every type read as the host converts them") {
  const std::vector<std::uint16_t> halves{half_from_double(1.5), half_from_double(-0.25), 0x7C00, 0x7E00};
  CHECK(memtune_lane_value(halves.data(), static_cast<int>(ElementType::f16), 0) == 1.5);
  CHECK(memtune_lane_value(halves.data(), static_cast<int>(ElementType::f16), 1) == -0.25);
  CHECK(std::isinf(memtune_lane_value(halves.data(), static_cast<int>(ElementType::f16), 2)));
  CHECK(std::isnan(memtune_lane_value(halves.data(), static_cast<int>(ElementType::f16), 3)));
  const std::vector<std::uint16_t> bf{bfloat16_from_double(3.0), bfloat16_from_double(-1e-3), 0x0001};
  CHECK(memtune_lane_value(bf.data(), static_cast<int>(ElementType::bf16), 0) == 3.0);
  CHECK(memtune_lane_value(bf.data(), static_cast<int>(ElementType::bf16), 1) == doctest::Approx(-1e-3).epsilon(1e-2));
  CHECK(memtune_lane_value(bf.data(), static_cast<int>(ElementType::bf16), 2) == std::ldexp(1.0, -133)); // subnormal
  const std::vector<std::int64_t> big{-(std::int64_t{1} << 40)};
  CHECK(memtune_lane_value(big.data(), static_cast<int>(ElementType::i64), 0) == -std::ldexp(1.0, 40));
  const std::vector<signed char> bytes{-5, 7};
  CHECK(memtune_lane_value(bytes.data(), static_cast<int>(ElementType::i8), 1) == 7);
}
