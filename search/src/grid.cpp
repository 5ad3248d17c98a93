#include <memtune/search/grid.hpp>

namespace memtune::search {

std::optional<Config> GridSearch::next() {
  if (next_ >= configs_.size()) return std::nullopt;
  return configs_[next_++];
}

} // namespace memtune::search
