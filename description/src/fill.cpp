#include <memtune/description/fill.hpp>

#include <memtune/io/parallel_for.hpp>
#include <memtune/description/random_data.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <span>

namespace memtune::description_detail {
namespace {

constexpr double kDefaultIntLo = 1, kDefaultIntHi = 100;

template <class T> void fill_typed(const Fill& f, std::span<T> out, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(out.size());
  if (f.kind == Fill::Kind::constant) {
    std::fill(out.begin(), out.end(), static_cast<T>(f.value));
    return;
  }
  if constexpr (std::is_floating_point_v<T>) {
    const bool default_range = !f.lo || (*f.lo == -1.0 && *f.hi == 1.0);
    if (default_range) {
      if constexpr (std::is_same_v<T, float>) {
        fill_random(out, seed);
      } else {
        // The same values as the float fill, in double.
        parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
          for (std::int64_t i = begin; i < end; ++i) {
            const std::uint64_t h = random_bits(seed, static_cast<std::uint64_t>(i));
            const float magnitude = 0.01F + 0.99F * static_cast<float>((h >> 40) * (1.0 / 16777216.0));
            out[static_cast<std::size_t>(i)] = (h & 1U) ? -magnitude : magnitude;
          }
        });
      }
      return;
    }
    const double lo = *f.lo, width = *f.hi - *f.lo;
    parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const double u = static_cast<double>(random_bits(seed, static_cast<std::uint64_t>(i)) >> 11) * 0x1p-53; // [0, 1)
        out[static_cast<std::size_t>(i)] = static_cast<T>(lo + width * u);
      }
    });
  } else {
    const double lo_d = f.lo ? *f.lo : kDefaultIntLo, hi_d = f.lo ? *f.hi : kDefaultIntHi;
    // Both ends fit in T (validate() checks it); the span fits in 64 bits.
    const auto lo = static_cast<long double>(lo_d);
    const auto width = static_cast<unsigned __int128>(static_cast<long double>(hi_d) - lo) + 1;
    parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const std::uint64_t h = random_bits(seed, static_cast<std::uint64_t>(i));
        const auto offset = static_cast<std::uint64_t>((static_cast<unsigned __int128>(h) * width) >> 64); // Lemire
        out[static_cast<std::size_t>(i)] = static_cast<T>(static_cast<__int128>(lo) + offset);
      }
    });
  }
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

std::vector<std::byte> fill_host(const Fill& fill, ElementType type, std::int64_t count, const FillRequest& request) {
  if (count < 0) throw std::invalid_argument("negative element count " + std::to_string(count));
  std::vector<std::byte> bytes(static_cast<std::size_t>(count) * element_size(type));
  if (fill.kind == Fill::Kind::custom) {
    fill.custom(request, bytes);
    return bytes;
  }
  // A vector type is filled lane by lane, as count * lanes values of its lane type.
  const ElementType lane = lane_type(type);
  const auto values = static_cast<std::size_t>(count) * static_cast<std::size_t>(lane_count(type));
  if (lane == ElementType::f16 || lane == ElementType::bf16) {
    // The float values of the same fill, rounded to the 16-bit type.
    std::vector<float> wide(values);
    fill_typed<float>(fill, std::span<float>(wide), request.seed);
    if (fill.sum_abs) scale_to_sum_abs(std::span<float>(wide), *fill.sum_abs);
    const bool is_half = lane == ElementType::f16;
    parallel_for(static_cast<std::int64_t>(values), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        const double v = wide[static_cast<std::size_t>(i)];
        const std::uint16_t bits = is_half ? half_from_double(v) : bfloat16_from_double(v);
        std::memcpy(bytes.data() + static_cast<std::size_t>(i) * 2, &bits, 2);
      }
    });
    return bytes;
  }
  with_element_type(lane, [&](auto zero) {
    using T = decltype(zero);
    const std::span<T> typed(reinterpret_cast<T*>(bytes.data()), values);
    fill_typed<T>(fill, typed, request.seed);
    if constexpr (std::is_floating_point_v<T>)
      if (fill.sum_abs) scale_to_sum_abs(typed, *fill.sum_abs);
  });
  return bytes;
}

} // namespace memtune::description_detail
