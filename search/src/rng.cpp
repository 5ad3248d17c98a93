#include <memtune/search/rng.hpp>

#include <stdexcept>

namespace memtune::search {

std::uint64_t uniform_index(std::mt19937_64& engine, std::uint64_t n) {
  if (n == 0) throw std::invalid_argument("uniform_index: empty range");
  // Reject the lowest (2^64 mod n) outputs so that every residue is equally likely.
  const std::uint64_t threshold = (0 - n) % n;
  for (;;) {
    const std::uint64_t r = engine();
    if (r >= threshold) return r % n;
  }
}

double uniform01(std::mt19937_64& engine) {
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

} // namespace memtune::search
