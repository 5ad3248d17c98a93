#pragma once
// The matvec kernels' geometry for one configuration, for the model: the
// description's own values (matvec.cpp's parameters and derived values, which
// its launch reads too), named. The kernels (matvec.cu) are checked against
// the model's addresses by tests/templates/matvec_emulation_test.cpp.
#include <memtune/model/access_pattern.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/model/target.hpp>
#include <memtune/templates/matvec.hpp>

#include <cstdint>

namespace memtune::templates {

struct MatvecGeometry {
  std::int64_t rows, cols;  // M, N
  MatvecLayout layout;
  MatvecKernel kernel;
  std::int64_t block, tpr, vec, unroll, prefetch, splits;
  bool x_smem;
  std::int64_t pad;
  std::int64_t tile_rows;   // rows per block (ROWS in matvec.cu)
  std::int64_t row_tiles;   // grid.x
  std::int64_t chunk;       // [columns] per split: round_up(ceil(N / S), 4)
  std::int64_t split0_cols; // [columns] of the representative split (split 0)

  // `env`: matvec_geometry_environment(config, problem, target).
  explicit MatvecGeometry(const search::Config& env)
      : rows(env.at("rows")), cols(env.at("cols")), layout(static_cast<MatvecLayout>(env.at("layout"))),
        kernel(static_cast<MatvecKernel>(env.at("kernel"))), block(env.at("block_size")),
        tpr(env.at("threads_per_row")), vec(env.at("vec")), unroll(env.at("unroll")), prefetch(env.at("prefetch")),
        splits(env.at("splits")), x_smem(static_cast<MatvecXStage>(env.at("x_stage")) == MatvecXStage::smem),
        pad(env.at("pad")), tile_rows(env.at("tile_rows")), row_tiles(env.at("row_tiles")), chunk(env.at("chunk")),
        split0_cols(env.at("split0_cols")) {}

  [[nodiscard]] bool col_major() const { return layout == MatvecLayout::col; }
};

// The description's values for one configuration (matvec.cpp); a recorded
// configuration without the hint axis loaded A plainly.
[[nodiscard]] search::Config matvec_geometry_environment(const search::Config& config, const Problem& problem,
                                                         const Target& target);

// The configuration's memory accesses for the analytical model (no GPU): matvec_access.cpp.
[[nodiscard]] AccessPattern matvec_access_pattern(const search::Config& config, const Problem& problem,
                                                  const Target& target);

} // namespace memtune::templates
