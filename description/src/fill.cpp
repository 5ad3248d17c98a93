#include <memtune/description/fill.hpp>

#include <memtune/io/parallel_for.hpp>
#include "fill_rule.cuh"

#include <cmath>
#include <cstring>
#include <limits>
#include <span>

namespace memtune::description_detail {
namespace {

constexpr double kDefaultIntLo = 1, kDefaultIntHi = 100;

// The rule of a random or constant fill of float, double or integer lanes,
// sum_abs left out (fill_host scales after it).
FillRule typed_rule(const Fill& f, ElementType lane, std::int64_t values, std::uint64_t seed) {
  FillRule r;
  r.values = values;
  r.lane_bytes = static_cast<int>(element_size(lane));
  r.key = memtune_splitmix64(seed);
  with_element_type(lane, [&](auto zero) {
    using T = decltype(zero);
    if (f.kind == Fill::Kind::constant) {
      const T value = static_cast<T>(f.value);
      std::memcpy(&r.lo_bits, &value, sizeof value);
      r.mode = memtune_fill_constant;
    } else if constexpr (std::is_floating_point_v<T>) {
      const bool is_float = std::is_same_v<T, float>;
      if (!f.lo || (*f.lo == -1.0 && *f.hi == 1.0)) { // the default range: fill_random's values
        r.mode = is_float ? memtune_fill_unit_float : memtune_fill_unit_double;
      } else {
        r.mode = is_float ? memtune_fill_range_float : memtune_fill_range_double;
        r.lo = *f.lo;
        r.width = *f.hi - *f.lo;
      }
    } else {
      // Both ends fit in T (validate() checks it); the span fits in 64 bits.
      const auto lo = static_cast<long double>(f.lo ? *f.lo : kDefaultIntLo);
      const auto hi = static_cast<long double>(f.lo ? *f.hi : kDefaultIntHi);
      r.mode = memtune_fill_integer;
      r.lo_bits = static_cast<std::uint64_t>(static_cast<__int128>(lo)); // two's complement
      // A double end of a 64-bit range may round past it (2^64 for UINT64_MAX): every value then.
      const auto span = static_cast<unsigned __int128>(hi - lo);
      r.span = span > ~0ULL ? ~0ULL : static_cast<std::uint64_t>(span);
    }
  });
  return r;
}

// Fill::sum_abs: the values scaled so that the sum of their magnitudes is
// `sum` (a random fill is never all zeros: its values are at least 0.01 in
// magnitude in the default range; an all-zero range is left as it is).
template <class T> void scale_to_sum_abs(std::span<T> values, double sum) {
  double total = 0.0;
  for (const T v : values) total += std::fabs(static_cast<double>(v));
  if (!(total > 0)) return;
  const double scale = sum / total;
  for (T& v : values) v = static_cast<T>(static_cast<double>(v) * scale);
}

} // namespace

std::optional<FillRule> fill_rule(const Fill& fill, ElementType type, std::int64_t count, std::uint64_t seed) {
  const ElementType lane = lane_type(type);
  if (fill.kind == Fill::Kind::custom || fill.sum_abs || lane == ElementType::f16 || lane == ElementType::bf16)
    return std::nullopt;
  return typed_rule(fill, lane, count * lane_count(type), seed);
}

void apply_fill_rule(const FillRule& r, void* out) {
  parallel_for(r.values, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i)
      memtune_fill_value(out, i, r.mode, r.lane_bytes, r.key, r.lo, r.width, r.lo_bits, r.span);
  });
}

std::vector<std::byte> fill_host(const Fill& fill, ElementType type, std::int64_t count, const FillRequest& request) {
  if (count < 0) throw std::invalid_argument("negative element count " + std::to_string(count));
  std::vector<std::byte> bytes(static_cast<std::size_t>(count) * element_size(type));
  if (fill.kind == Fill::Kind::custom) {
    fill.custom(request, bytes);
    return bytes;
  }
  // A vector type is filled lane by lane, as count * lanes values of its lane type.
  const ElementType lane = lane_type(type);
  const auto values = count * lane_count(type);
  if (lane == ElementType::f16 || lane == ElementType::bf16) {
    // The float values of the same fill, rounded to the 16-bit type.
    std::vector<float> wide(static_cast<std::size_t>(values));
    apply_fill_rule(typed_rule(fill, ElementType::f32, values, request.seed), wide.data());
    if (fill.sum_abs) scale_to_sum_abs(std::span<float>(wide), *fill.sum_abs);
    const bool is_half = lane == ElementType::f16;
    parallel_for(values, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const double v = wide[static_cast<std::size_t>(i)];
        const std::uint16_t bits = is_half ? half_from_double(v) : bfloat16_from_double(v);
        std::memcpy(bytes.data() + static_cast<std::size_t>(i) * 2, &bits, 2);
      }
    });
    return bytes;
  }
  apply_fill_rule(typed_rule(fill, lane, values, request.seed), bytes.data());
  if (fill.sum_abs) {
    with_element_type(lane, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_floating_point_v<T>)
        scale_to_sum_abs(std::span<T>(reinterpret_cast<T*>(bytes.data()), static_cast<std::size_t>(values)), *fill.sum_abs);
    });
  }
  return bytes;
}

} // namespace memtune::description_detail
