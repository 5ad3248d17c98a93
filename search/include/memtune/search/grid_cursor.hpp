#pragma once
// Walks the valid configs of a space in grid order (the first axis varies
// slowest) without storing them: memory is one Config, whatever the size of
// the space.
//
//   GridCursor walk(space);
//   while (std::optional<Config> c = walk.next()) use(*c);
#include <memtune/search/config.hpp>
#include <memtune/search/space.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace memtune::search {

class GridCursor {
public:
  // The space is borrowed and must outlive the cursor.
  explicit GridCursor(const Space& space);

  // The next valid config, or nullopt once the grid is walked.
  std::optional<Config> next();
  // Cross-product indices tested so far (valid or not).
  [[nodiscard]] std::size_t position() const { return position_; }

private:
  void advance(); // to the next cross-product index, changing only the axes that roll over

  const Space* space_;
  std::size_t size_;
  std::size_t position_ = 0;  // cross-product index of current_
  std::vector<std::size_t> digits_; // position of current_ on each axis
  Config current_;
};

} // namespace memtune::search
