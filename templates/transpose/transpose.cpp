// The transpose template's kernel description: templates/transpose/transpose.cu
// (the tiled transpose of NVIDIA's 2008 article) as data.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/templates/transpose.hpp>
#include "embedded_sources.hpp"

#include "transpose_geometry.hpp"

namespace memtune::templates {

using search::Axis;

namespace {
// Block rows and columns are int in the kernel; the grid's y dimension (row
// tiles) holds at most 65535 blocks, which a constraint checks per tile size.
constexpr std::int64_t kMaxSide = std::int64_t{1} << 20;

// transpose.cu's transpose_reference: one thread per output element, no
// tile; a grid-stride loop over at most 2^20 blocks.
ReferenceKernel reference_kernel() {
  return {"transpose_reference", {}, {search::parse_expr("256")},
          {search::parse_expr("min(ceil_div(rows * cols, 256), 1048576)")}, 0};
}

KernelDescription describe() {
  return KernelBuilder("transpose")
      .summary("out = in^T for a rows x cols float matrix (row-major), through a padded tile in shared memory; output "
               "rows written in sector-aligned segments")
      .source("transpose.cu", embedded::transpose_cu)
      .kernel("transpose_kernel<{tile}, {tile_rows}, {block_rows}, {pad}>")
      .size("rows", 4096, "rows of the input (columns of the output)", 1, kMaxSide)
      .size("cols", 4096, "columns of the input (rows of the output)", 1, kMaxSide)
      .parameter(Axis::ordinal("tile", {16, 32, 64},
                               "tile width: input columns per tile, read as rows of whole 32-float pieces"))
      .parameter(Axis::ordinal("tile_rows", {16, 32, 64},
                               "tile height: input rows per tile, written as output row segments of that length"))
      .parameter(Axis::ordinal("block_rows", {1, 2, 4, 8, 16, 32},
                               "threads per block in y (block: min(tile, 32) x block_rows threads)"))
      .parameter(Axis::ordinal("pad", {0, 1},
                               "floats of padding per shared tile row: 1 puts a column of the tile in 32 different "
                               "banks (the article's TILE_DIM + 1); 0 = one bank for a tile of 32 or 64"))
      // transpose.cu's arithmetic (TransposeGeometry reads it from here).
      .derived("block_x", "min(tile, 32)")                            // threads per block in x
      .derived("pitch", "tile + pad")                                 // [floats] shared tile row
      .derived("halo", "rows % 8 != 0 ? 8 : 0")                       // input rows loaded above the tile's own
      .derived("load_steps", "ceil_div(tile_rows + 8, block_rows)")   // load loop steps (the halo's guarded)
      .derived("copies", "tile * tile_rows / (block_x * block_rows)") // elements each thread stores
      .derived("grid_x", "ceil_div(cols, tile)")                      // tiles along the input's columns
      // Tiles along the input's rows: one more where shifted segments end past the last tile.
      .derived("grid_y", "ceil_div(rows + (halo > 0 ? 7 : 0), tile_rows)")
      .constraint("tile_rows % block_x == 0", "a warp writes whole pieces of min(tile, 32) floats of an output row")
      .constraint("block_rows <= tile && block_rows <= tile_rows",
                  "each thread reads at least one tile row and writes at least one output row")
      .constraint("block_x * block_rows >= 32", "blocks of whole warps (a 16 x 1 block is half a warp)")
      .constraint("block_x * block_rows <= max_threads_per_block", "threads per block above the device limit")
      .constraint("grid_y <= 65535", "more row tiles than the grid's y dimension holds (65535)")
      .block("block_x", "block_rows")
      .grid("grid_x", "grid_y")
      .buffer("in", ElementType::f32, "rows * cols", BufferRole::in)
      .buffer("out", ElementType::f32, "rows * cols", BufferRole::out)
      .scalar("rows", ElementType::i32, "rows")
      .scalar("cols", ElementType::i32, "cols")
      .verify_with_kernel(reference_kernel(), {0.0, 0.0}) // a copy: exact
      .access_pattern(transpose_access_pattern)
      // The article's configuration: 32 x 32 tiles, 8 rows of threads, padded.
      .default_config(nlohmann::json{{"tile", 32}, {"tile_rows", 32}, {"block_rows", 8}, {"pad", 1}})
      .build();
}
} // namespace

const KernelDescription& transpose_description() {
  static const KernelDescription description = describe();
  return description;
}

} // namespace memtune::templates
