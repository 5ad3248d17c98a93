#pragma once
// Per-warp shared-memory address patterns that kernels in the catalogue use.
// All addresses are byte offsets from the start of the shared array.
//
//   // Transpose tile 32 x 32 floats padded to 33 columns; warp reads column 5:
//   auto a = tile_column(/*base*/ 0, /*col*/ 5, /*row0*/ 0, /*pitch_elems*/ 33, /*elem_bytes*/ 4);
//   simulate_banks(a, BankConfig::fixed_4byte()).ways == 1
#include <memtune/model/warp_access.hpp>

#include <cstdint>

namespace memtune::model {

// lane i -> base + i * elem_bytes (consecutive elements).
[[nodiscard]] WarpAccess linear(std::uint64_t base, int elem_bytes, AccessKind kind = AccessKind::load);
// lane i -> base + i * stride_elems * elem_bytes.
[[nodiscard]] WarpAccess strided_elems(std::uint64_t base, std::int64_t stride_elems, int elem_bytes,
                                       AccessKind kind = AccessKind::load);
// Row-major 2D tile with `pitch_elems` elements per row (the width plus padding).
// Row access: lane i -> element (row, col0 + i).
[[nodiscard]] WarpAccess tile_row(std::uint64_t base, std::int64_t row, std::int64_t col0, std::int64_t pitch_elems,
                                  int elem_bytes, AccessKind kind = AccessKind::load);
// Column access: lane i -> element (row0 + i, col). Conflicts unless the pitch
// is odd in bank units, which is what padding buys.
[[nodiscard]] WarpAccess tile_column(std::uint64_t base, std::int64_t col, std::int64_t row0, std::int64_t pitch_elems,
                                     int elem_bytes, AccessKind kind = AccessKind::load);
// Every lane reads the same element.
[[nodiscard]] WarpAccess broadcast(std::uint64_t address, int elem_bytes, AccessKind kind = AccessKind::load);

} // namespace memtune::model
