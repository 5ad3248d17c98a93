#pragma once
// The transpose kernel's geometry for one configuration, for the model: the
// description's own values (transpose.cpp's parameters and derived values,
// which its launch reads too), named. The arithmetic lives in the description
// only; the kernel (transpose.cu) is checked against the model's addresses by
// tests/templates/transpose_emulation_test.cpp.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>

#include <cstdint>

namespace memtune::templates {

struct TransposeGeometry {
  std::int64_t rows, cols;   // of the input
  std::int64_t tile;         // TILE: tile width (input columns)
  std::int64_t tile_rows;    // TILE_ROWS: tile height (input rows)
  std::int64_t block_rows;   // ROWS: threads per block in y
  std::int64_t pad;          // PAD: floats of padding per shared tile row
  std::int64_t block_x;      // threads per block in x: min(tile, 32)
  std::int64_t pitch;        // [floats] shared tile row
  std::int64_t halo;         // input rows loaded above the tile's own: 8 where rows % 8 != 0, else 0
  std::int64_t load_steps;   // steps of the load loop over the tile's rows and the 8 above (guarded)
  std::int64_t copies;       // elements each thread stores
  std::int64_t grid_x;       // tiles along the input's columns
  std::int64_t grid_y;       // tiles along the input's rows

  // `env`: geometry_environment(transpose_description(), config, problem, target).
  explicit TransposeGeometry(const search::Config& env)
      : rows(env.at("rows")), cols(env.at("cols")), tile(env.at("tile")), tile_rows(env.at("tile_rows")),
        block_rows(env.at("block_rows")), pad(env.at("pad")), block_x(env.at("block_x")), pitch(env.at("pitch")),
        halo(env.at("halo")), load_steps(env.at("load_steps")), copies(env.at("copies")),
        grid_x(env.at("grid_x")), grid_y(env.at("grid_y")) {}

  [[nodiscard]] std::int64_t threads() const { return block_x * block_rows; }
  [[nodiscard]] std::int64_t load_iterations() const { return load_steps * (tile / block_x); }
};

// The configuration's memory accesses for the analytical model (no GPU): transpose_access.cpp.
[[nodiscard]] AccessPattern transpose_access_pattern(const search::Config& config, const Problem& problem,
                                                     const Target& target);

} // namespace memtune::templates
