#pragma once
// A seeded pseudo-random permutation of 0 .. n-1, drawn one element at a
// time in constant memory: sampling without replacement from a range too
// large to list (the cross product of a space, 10^7 and more).
//
//   LazyPermutation order(space.cross_product_size(), engine);
//   while (auto i = order.next()) if (space.admits(space.at_index(*i))) ...
//
// The k-th element is a 4-round Feistel network over the smallest even
// number of bits that covers n, keyed by four draws from the engine, applied
// to k and re-applied while the result is >= n ("cycle walking": Black and
// Rogaway, "Ciphers with Arbitrary Finite Domains", CT-RSA 2002). A Feistel
// network is a bijection, and so is cycle walking on it, so every element
// comes exactly once; 4 rounds with a strong round function pass for a
// random permutation (Luby and Rackoff) wherever n is large enough to need
// one. Not every permutation is reachable, so on a few elements it is not
// uniform: small spaces are shuffled whole instead (random_search.hpp).
// Cost: on average fewer than 4 network evaluations a draw, no allocation.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>

namespace memtune::search {

class LazyPermutation {
public:
  // Draws the keys from the engine (four outputs).
  LazyPermutation(std::size_t n, std::mt19937_64& engine);

  // The next element, or nullopt once all n were drawn.
  std::optional<std::size_t> next();
  [[nodiscard]] std::size_t drawn() const { return drawn_; }
  [[nodiscard]] std::size_t size() const { return n_; }

private:
  [[nodiscard]] std::uint64_t encrypt(std::uint64_t x) const;

  std::size_t n_;
  std::size_t drawn_ = 0;
  unsigned half_bits_ = 1;
  std::uint64_t half_mask_ = 1;
  std::array<std::uint64_t, 4> keys_{};
};

} // namespace memtune::search
