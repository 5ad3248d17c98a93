#include <memtune/io/parallel_for.hpp>
#include <memtune/description/random_data.hpp>

#include "fill_rule.cuh"

namespace memtune {

std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index) {
  return memtune_fill_bits(memtune_splitmix64(seed), static_cast<long long>(index));
}

void fill_random(std::span<float> data, std::uint64_t seed) {
  const std::uint64_t key = memtune_splitmix64(seed);
  parallel_for(static_cast<std::int64_t>(data.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) data[static_cast<std::size_t>(i)] = memtune_unit_float(memtune_fill_bits(key, i));
  });
}

} // namespace memtune
