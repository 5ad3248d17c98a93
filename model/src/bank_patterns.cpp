#include <memtune/model/bank_patterns.hpp>

#include <stdexcept>

namespace memtune::model {

namespace {
std::uint64_t element(std::uint64_t base, std::int64_t index, int elem_bytes) {
  if (index < 0) throw std::invalid_argument("shared-memory pattern: negative element index");
  return base + static_cast<std::uint64_t>(index) * static_cast<std::uint64_t>(elem_bytes);
}
} // namespace

WarpAccess linear(std::uint64_t base, int elem_bytes, AccessKind kind) {
  return strided_elems(base, 1, elem_bytes, kind);
}

WarpAccess strided_elems(std::uint64_t base, std::int64_t stride_elems, int elem_bytes, AccessKind kind) {
  return WarpAccess::from_function([&](int lane) { return element(base, stride_elems * lane, elem_bytes); },
                                   elem_bytes, kind);
}

WarpAccess tile_row(std::uint64_t base, std::int64_t row, std::int64_t col0, std::int64_t pitch_elems, int elem_bytes,
                    AccessKind kind) {
  return WarpAccess::from_function(
      [&](int lane) { return element(base, row * pitch_elems + col0 + lane, elem_bytes); }, elem_bytes, kind);
}

WarpAccess tile_column(std::uint64_t base, std::int64_t col, std::int64_t row0, std::int64_t pitch_elems,
                       int elem_bytes, AccessKind kind) {
  return WarpAccess::from_function(
      [&](int lane) { return element(base, (row0 + lane) * pitch_elems + col, elem_bytes); }, elem_bytes, kind);
}

WarpAccess broadcast(std::uint64_t address, int elem_bytes, AccessKind kind) {
  return WarpAccess::from_function([&](int) { return std::optional<std::uint64_t>(address); }, elem_bytes, kind);
}

} // namespace memtune::model
