#include <memtune/search/lazy_permutation.hpp>

#include <memtune/search/rng.hpp>

namespace memtune::search {

std::size_t LazyPermutation::at(std::size_t i) const {
  const auto it = displaced_.find(i);
  return it == displaced_.end() ? i : it->second;
}

std::optional<std::size_t> LazyPermutation::next(std::mt19937_64& engine) {
  if (drawn_ >= n_) return std::nullopt;
  // Swap position drawn_ with a uniform position in [drawn_, n) and emit the
  // element that lands at drawn_; position drawn_ is never read again.
  const std::size_t j = drawn_ + static_cast<std::size_t>(uniform_index(engine, n_ - drawn_));
  const std::size_t chosen = at(j);
  const std::size_t here = at(drawn_);
  if (j != drawn_) displaced_[j] = here;
  displaced_.erase(drawn_);
  ++drawn_;
  return chosen;
}

} // namespace memtune::search
