#pragma once
// The transpose kernel's geometry for one configuration: the same arithmetic
// as templates/transpose/transpose.cu, in one place for the model.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>

#include <cstdint>

namespace memtune::templates {

struct TransposeGeometry {
  std::int64_t rows, cols;   // of the input
  std::int64_t tile;         // TILE: tile side, threads per block in x
  std::int64_t block_rows;   // ROWS: threads per block in y
  std::int64_t pad;          // PAD: floats of padding per shared tile row
  std::int64_t pitch;        // [floats] shared tile row
  std::int64_t copies;       // elements each thread copies: tile / block_rows
  std::int64_t grid_x;       // tiles along the input's columns
  std::int64_t grid_y;       // tiles along the input's rows

  TransposeGeometry(const search::Config& c, const Problem& p)
      : rows(p.at("rows")), cols(p.at("cols")), tile(c.at("tile")), block_rows(c.at("block_rows")), pad(c.at("pad")),
        pitch(tile + pad), copies(tile / block_rows), grid_x((cols + tile - 1) / tile),
        grid_y((rows + tile - 1) / tile) {}

  [[nodiscard]] std::int64_t threads() const { return tile * block_rows; }
};

// The configuration's memory accesses for the analytical model (no GPU): transpose_access.cpp.
[[nodiscard]] AccessPattern transpose_access_pattern(const search::Config& config, const Problem& problem,
                                                     const Target& target);

} // namespace memtune::templates
