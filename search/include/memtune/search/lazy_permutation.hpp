#pragma once
// A uniformly random permutation of 0 .. n-1, drawn one element at a time:
// sampling without replacement from a range too large to list (the cross
// product of a space, 10^7 and more).
//
//   LazyPermutation order(space.cross_product_size());
//   while (auto i = order.next(engine)) if (space.admits(space.at_index(*i))) ...
//
// A forward Fisher-Yates shuffle over a sparse table of the entries it has
// displaced: after k draws it holds at most k entries, whatever n is. Draws
// go through uniform_index (rng.hpp), so a seed names the same order with any
// standard library.
#include <cstddef>
#include <optional>
#include <random>
#include <unordered_map>

namespace memtune::search {

class LazyPermutation {
public:
  explicit LazyPermutation(std::size_t n) : n_(n) {}

  // The next element, or nullopt once all n were drawn.
  std::optional<std::size_t> next(std::mt19937_64& engine);
  [[nodiscard]] std::size_t drawn() const { return drawn_; }
  [[nodiscard]] std::size_t size() const { return n_; }

private:
  [[nodiscard]] std::size_t at(std::size_t i) const; // the element now at position i

  std::size_t n_;
  std::size_t drawn_ = 0;
  std::unordered_map<std::size_t, std::size_t> displaced_; // position -> element, where not the identity
};

} // namespace memtune::search
