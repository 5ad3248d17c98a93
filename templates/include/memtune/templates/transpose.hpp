#pragma once
// The transpose template: out = in^T for a rows x cols float matrix stored
// row-major, any sizes (source: templates/transpose/transpose.cu). A block
// stages a tile in shared memory so that both the reads of `in` and the
// writes of `out` are coalesced; the tile's padding keeps its column reads
// off a single bank (NVIDIA, "Optimizing Matrix Transpose in CUDA", 2008).
// Problem: rows, cols (default 4096 x 4096).
//
// Axes: tile (16, 32, 64: input columns per tile), tile_rows (16, 32, 64:
// input rows per tile), block_rows (threads per block in y; the block is
// min(tile, 32) x block_rows), pad (0, 1 float per shared tile row). Output
// rows are written in segments that start on 32-byte sectors (shifted where
// rows is not a multiple of 8).
#include <memtune/description/kernel_description.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace memtune::templates {

// The transpose as a kernel description (templates/transpose/transpose.cpp).
const KernelDescription& transpose_description();

// The CPU reference: out (cols x rows, row-major) with out[j * rows + i] =
// in[i * cols + j], in double. Throws std::invalid_argument when in.size() !=
// rows * cols or a size is below 1.
std::vector<double> transpose_reference(std::span<const float> in, std::int64_t rows, std::int64_t cols);

} // namespace memtune::templates
