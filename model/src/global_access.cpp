#include <memtune/model/global_access.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace memtune::model {
namespace {

// Distinct values among at most a warp's worth of entries: sort and count
// runs. The model replays every warp instruction of a block for hundreds of
// candidates, so this stays on the stack instead of in a std::set.
template <std::size_t N>
int count_distinct(std::array<std::uint64_t, N>& values, std::size_t count) {
  std::sort(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count));
  return static_cast<int>(std::unique(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(count)) -
                          values.begin());
}

} // namespace

GlobalAccess analyze_global(const WarpAccess& access) {
  check_warp_access(access);
  GlobalAccess g;
  const auto width = static_cast<std::uint64_t>(access.width_bytes);
  // A lane's access of <= 16 bytes touches at most two sectors and two lines
  // (two only when misaligned), so 2 per lane bounds both lists.
  std::array<std::uint64_t, 2 * warp_lanes> sectors{}, lines{};
  std::array<std::pair<std::uint64_t, std::uint64_t>, warp_lanes> spans{}; // [first, last] byte
  std::size_t n_sectors = 0, n_lines = 0, n_spans = 0;
  for (const auto& lane : access.lanes) {
    if (!lane) continue;
    g.bytes_requested += width;
    const std::uint64_t first = *lane, last = *lane + width - 1;
    spans[n_spans++] = {first, last};
    for (std::uint64_t s = first / sector_bytes; s <= last / sector_bytes; ++s) sectors[n_sectors++] = s;
    for (std::uint64_t l = first / line_bytes; l <= last / line_bytes; ++l) lines[n_lines++] = l;
  }
  // Unique bytes: the length of the union of the lanes' byte spans (lanes
  // reading the same word count once, as the memory system serves them).
  std::sort(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(n_spans));
  std::uint64_t covered_to = 0; // one past the last byte counted
  for (std::size_t i = 0; i < n_spans; ++i) {
    const auto [first, last] = spans[i];
    const std::uint64_t from = std::max(first, covered_to);
    if (last + 1 > from) g.unique_bytes += last + 1 - from;
    covered_to = std::max(covered_to, last + 1);
  }
  g.sectors = count_distinct(sectors, n_sectors);
  g.lines = count_distinct(lines, n_lines);
  g.bytes_moved = static_cast<std::uint64_t>(g.sectors) * sector_bytes;
  g.efficiency = g.bytes_moved ? static_cast<double>(g.unique_bytes) / static_cast<double>(g.bytes_moved) : 0.0;
  return g;
}

} // namespace memtune::model
