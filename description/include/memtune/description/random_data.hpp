#pragma once
// Random inputs for workloads: never zeros (zeros hide unwritten outputs and
// wrong indexing, and can run faster than real data).
#include <cstdint>
#include <span>

namespace memtune {

// Fills with values in [-1, -0.01] U [0.01, 1], a counter-based hash of
// (seed, index): the same seed gives the same data whatever the thread count.
void fill_random(std::span<float> data, std::uint64_t seed);

} // namespace memtune
