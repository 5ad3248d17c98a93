#include <memtune/io/parallel_for.hpp>
#include <memtune/description/random_data.hpp>

namespace memtune {
namespace {
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
} // namespace

std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index) { return splitmix64(splitmix64(seed) ^ index); }

void fill_random(std::span<float> data, std::uint64_t seed) {
  const std::uint64_t key = splitmix64(seed);
  parallel_for(static_cast<std::int64_t>(data.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const std::uint64_t h = splitmix64(key ^ static_cast<std::uint64_t>(i)); // = random_bits(seed, i)
      const float magnitude = 0.01F + 0.99F * static_cast<float>((h >> 40) * (1.0 / 16777216.0));
      data[static_cast<std::size_t>(i)] = (h & 1U) ? -magnitude : magnitude;
    }
  });
}

} // namespace memtune
