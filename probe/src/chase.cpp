#include <memtune/probe/chase.hpp>

#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace memtune::probe {

ChaseBuffer make_chase_buffer(std::size_t bytes, std::size_t stride_bytes, std::uint64_t seed) {
  if (stride_bytes < 4 || stride_bytes % 4 != 0)
    throw std::invalid_argument("chase stride must be a multiple of 4 bytes, got " + std::to_string(stride_bytes));
  const std::size_t slots = bytes / stride_bytes;
  if (slots < 2) throw std::invalid_argument("chase buffer of " + std::to_string(bytes) + " bytes holds fewer than 2 slots");
  const std::size_t words_per_slot = stride_bytes / 4;
  if (slots * words_per_slot > 0xFFFFFFFFull) throw std::invalid_argument("chase buffer too large for 32-bit indices");

  std::mt19937_64 rng(seed);
  // Sattolo's algorithm: a uniformly random single cycle through all slots.
  std::vector<std::uint32_t> order(slots);
  std::iota(order.begin(), order.end(), 0U);
  for (std::size_t i = slots - 1; i > 0; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order[i], order[pick(rng)]);
  }
  ChaseBuffer b;
  b.slots = slots;
  b.stride_bytes = stride_bytes;
  // Fillers are never read; make them non-zero anyway, like every input.
  b.next.assign(slots * words_per_slot, 0x5EEDU);
  // order is a permutation with one cycle: slot s is followed by order[s].
  for (std::size_t s = 0; s < slots; ++s)
    b.next[s * words_per_slot] = static_cast<std::uint32_t>(order[s] * words_per_slot);
  b.start = 0;
  return b;
}

std::uint32_t chase(const ChaseBuffer& b, std::uint32_t from, std::int64_t steps) {
  std::uint32_t j = from;
  for (std::int64_t s = 0; s < steps; ++s) j = b.next.at(j);
  return j;
}

} // namespace memtune::probe
