#include <memtune/search/lazy_permutation.hpp>
#include <memtune/search/rng.hpp>

#include <bit>

namespace memtune::search {

LazyPermutation::LazyPermutation(std::size_t n, std::mt19937_64& engine) : n_(n) {
  // Two halves of half_bits_ each cover n: at most 4 n values, so a draw
  // walks fewer than 4 times on average.
  const unsigned bits = n > 1 ? static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(n - 1))) : 1;
  half_bits_ = (bits + 1) / 2;
  half_mask_ = half_bits_ >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << half_bits_) - 1;
  for (auto& k : keys_) k = engine();
}

std::uint64_t LazyPermutation::encrypt(std::uint64_t x) const {
  std::uint64_t left = x >> half_bits_, right = x & half_mask_;
  for (const std::uint64_t key : keys_) {
    const std::uint64_t f = splitmix64(right ^ key) & half_mask_;
    const std::uint64_t next_right = left ^ f;
    left = right;
    right = next_right;
  }
  return (left << half_bits_) | right;
}

std::optional<std::size_t> LazyPermutation::next() {
  if (drawn_ >= n_) return std::nullopt;
  std::uint64_t x = encrypt(drawn_++);
  while (x >= n_) x = encrypt(x); // the cycle through x returns below n: the network is a bijection
  return static_cast<std::size_t>(x);
}

} // namespace memtune::search
