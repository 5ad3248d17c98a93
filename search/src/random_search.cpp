#include <memtune/search/random_search.hpp>

#include <algorithm>

namespace memtune::search {

RandomSearch::RandomSearch(const Space& space, std::mt19937_64& engine) : order_(space.enumerate()) {
  // A seeded shuffle of the valid configs: uniform, repeat-free, reproducible.
  // std::shuffle's algorithm is implementation-defined, so do Fisher-Yates here
  // to keep runs identical across standard libraries.
  for (std::size_t i = order_.size(); i > 1; --i) {
    std::uniform_int_distribution<std::size_t> pick(0, i - 1);
    std::swap(order_[i - 1], order_[pick(engine)]);
  }
}

std::optional<Config> RandomSearch::next() {
  if (next_ >= order_.size()) return std::nullopt;
  return order_[next_++];
}

} // namespace memtune::search
