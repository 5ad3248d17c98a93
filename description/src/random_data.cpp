#include <memtune/description/fill.hpp>
#include <memtune/description/random_data.hpp>

namespace memtune {

// The default fill of a float buffer (fill_rule.cuh): one rule for every fill.
void fill_random(std::span<float> data, std::uint64_t seed) {
  const auto rule = description_detail::fill_rule(Fill{}, ElementType::f32, static_cast<std::int64_t>(data.size()), seed);
  description_detail::apply_fill_rule(*rule, data.data());
}

} // namespace memtune
