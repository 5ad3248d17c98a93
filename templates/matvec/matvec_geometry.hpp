#pragma once
// The matvec kernels' geometry for one configuration: the same arithmetic as
// templates/matvec/matvec.cu, in one place for the launch, the workload and
// the model.
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

  MatvecGeometry(const search::Config& c, const Problem& p)
      : rows(p.at("rows")), cols(p.at("cols")), layout(static_cast<MatvecLayout>(p.at("layout"))),
        kernel(static_cast<MatvecKernel>(c.at("kernel"))), block(c.at("block_size")), tpr(c.at("threads_per_row")),
        vec(c.at("vec")), unroll(c.at("unroll")),
        prefetch(c.at("prefetch")), splits(c.at("splits")),
        x_smem(static_cast<MatvecXStage>(c.at("x_stage")) == MatvecXStage::smem), pad(c.at("pad")),
        tile_rows(matvec_tile_rows(kernel, layout, block, tpr, vec)), row_tiles((rows + tile_rows - 1) / tile_rows),
        chunk(matvec_chunk(cols, splits)) {}

  [[nodiscard]] bool col_major() const { return layout == MatvecLayout::col; }
  // [columns] of the representative split (split 0).
  [[nodiscard]] std::int64_t split_cols() const { return chunk < cols ? chunk : cols; }
};

// The configuration's memory accesses for the analytical model (no GPU): matvec_access.cpp.
[[nodiscard]] AccessPattern matvec_access_pattern(const search::Config& config, const Problem& problem,
                                                  const Target& target);

} // namespace memtune::templates
