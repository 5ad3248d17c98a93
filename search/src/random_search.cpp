#include <memtune/search/random_search.hpp>

#include <memtune/search/rng.hpp>

#include <utility>

namespace memtune::search {

RandomSearch::RandomSearch(const Space& space, std::mt19937_64& engine) : space_(&space) {
  if (space.cross_product_size() > kShuffleLimit) {
    sample_.emplace(space.cross_product_size(), engine);
    return;
  }
  order_ = space.enumerate();
  // A seeded shuffle of the valid configs: uniform, repeat-free, reproducible.
  // std::shuffle and std::uniform_int_distribution are implementation-defined,
  // so do Fisher-Yates with uniform_index to keep runs identical across
  // standard libraries.
  for (std::size_t i = order_.size(); i > 1; --i)
    std::swap(order_[i - 1], order_[uniform_index(engine, i)]);
}

std::optional<Config> RandomSearch::next() {
  if (sample_) {
    while (const auto index = sample_->next()) {
      space_->at_index(*index, scratch_);
      if (space_->admits(scratch_)) return scratch_;
    }
    return std::nullopt;
  }
  if (next_ >= order_.size()) return std::nullopt;
  return order_[next_++];
}

} // namespace memtune::search
