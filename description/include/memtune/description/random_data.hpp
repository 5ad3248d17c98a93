#pragma once
// Random inputs for workloads: never zeros (zeros hide unwritten outputs and
// wrong indexing, and can run faster than real data).
#include <cstdint>
#include <span>

namespace memtune {

// Fills with values in [-1, -0.01] U [0.01, 1], a counter-based hash of
// (seed, index): the same seed gives the same data whatever the thread count.
void fill_random(std::span<float> data, std::uint64_t seed);

// The counter-based hash behind fill_random: 64 random bits for (seed, index),
// the same whatever the thread count.
std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index);

} // namespace memtune
