#pragma once
// Portable draws from a seeded std::mt19937_64.
//
// The engine's output is fixed by the standard, but the distributions
// (std::uniform_int_distribution, std::uniform_real_distribution) are not:
// libstdc++ and libc++ turn the same engine output into different numbers.
// Every random choice in search/ goes through these two functions so that a
// seed names the same run with any standard library.
#include <cstdint>
#include <random>

namespace memtune::search {

// Uniform integer in [0, n), unbiased (rejection). Precondition: n > 0.
[[nodiscard]] std::uint64_t uniform_index(std::mt19937_64& engine, std::uint64_t n);

// Uniform double in [0, 1), from the top 53 bits of one draw.
[[nodiscard]] double uniform01(std::mt19937_64& engine);

// splitmix64's finaliser: every output bit depends on every input bit (a
// stateless hash for permutations and shard assignment).
[[nodiscard]] constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

} // namespace memtune::search
