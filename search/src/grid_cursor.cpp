#include <memtune/search/grid_cursor.hpp>

namespace memtune::search {

GridCursor::GridCursor(const Space& space)
    : space_(&space), size_(space.cross_product_size()), digits_(space.axes().size(), 0) {
  if (size_ > 0) current_ = space.at_index(0);
}

void GridCursor::advance() {
  ++position_;
  if (position_ >= size_) return;
  // An odometer, last axis fastest: only the axes that roll over change.
  const auto& axes = space_->axes();
  for (std::size_t a = axes.size(); a-- > 0;) {
    const bool carry = ++digits_[a] == axes[a].values.size();
    if (carry) digits_[a] = 0;
    current_.set(axes[a].name, axes[a].values[digits_[a]]);
    if (!carry) return;
  }
}

std::optional<Config> GridCursor::next() {
  while (position_ < size_) {
    const bool valid = space_->admits(current_);
    std::optional<Config> out = valid ? std::optional<Config>(current_) : std::nullopt;
    advance();
    if (out) return out;
  }
  return std::nullopt;
}

} // namespace memtune::search
