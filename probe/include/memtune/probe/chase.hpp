#pragma once
// The pointer-chasing latency probe's buffer: a random cycle through slots
// `stride` bytes apart (Sattolo's algorithm: one cycle through every slot), so
// each load depends on the previous one and lands on a line no prefetcher
// predicts.
//
//   ChaseBuffer b = make_chase_buffer(1 << 20, 128, /*seed*/ 1);
//   b.next.size() == (1 << 20) / 4;  b.slots == 8192;
//   chase(b, b.start, b.slots) == b.start   // a full cycle comes back
#include <cstddef>
#include <cstdint>
#include <vector>

namespace memtune::probe {

struct ChaseBuffer {
  std::vector<std::uint32_t> next; // next[i] = the index (in 4-byte words) loaded after word i; slot heads only
  std::size_t slots = 0;           // slots in the cycle
  std::size_t stride_bytes = 0;    // [bytes] between slot heads
  std::uint32_t start = 0;         // word index of the first slot
};

// bytes: buffer size (rounded down to whole slots, at least 2 slots);
// stride_bytes: a multiple of 4, >= 4. Words that are not slot heads hold a
// random non-zero filler (never read). Throws std::invalid_argument.
ChaseBuffer make_chase_buffer(std::size_t bytes, std::size_t stride_bytes, std::uint64_t seed);

// The word index reached from `from` after `steps` loads (the CPU reference).
std::uint32_t chase(const ChaseBuffer& b, std::uint32_t from, std::int64_t steps);

} // namespace memtune::probe
