// memtune transpose template: out = in^T for a rows x cols float matrix
// (row-major: in(i, j) = in[i * cols + j], out(j, i) = out[j * rows + i]),
// any sizes. Compiled by NVRTC at run time.
//
// Background: NVIDIA's "Optimizing Matrix Transpose in CUDA" (Ruetsch and
// Micikevicius, 2008). A naive transpose reads rows and writes columns: one
// of the two is uncoalesced. The tiled kernel stages a tile in shared memory:
// a block reads the tile's rows coalesced, and writes the tile's columns,
// read from shared memory, as rows of the output, coalesced too. Reading a
// column of a tile of TILE-float rows puts the lanes of a warp TILE words
// apart, all in one bank when TILE is a multiple of 32 (a 32-way conflict);
// one float of padding per row (TILE + 1 words) spreads them over all 32
// banks. That padding is the PAD axis.
//
// Template parameters (the search axes):
//   TILE       tile width: columns of `in` per tile, rows of `out` it writes
//   TILE_ROWS  tile height: rows of `in` per tile, the length of each output
//              row segment a block writes
//   ROWS       threads per block in y (the article's BLOCK_ROWS)
//   PAD        floats of padding per shared tile row (0, or 1 as in the article)
// The block is BX x ROWS threads, BX = min(TILE, 32): a thread reads TILE / BX
// pieces of BX floats of a tile row (a warp: whole 32-float pieces, or two
// rows' 16), and writes TILE_ROWS / BX pieces of an output row. The article's
// tiles are square; wider or taller ones give each thread more copies in
// flight and a warp longer contiguous pieces. Which shape wins depends on the
// matrix and the GPU (docs/results.md has the times).
//
// Output segments start on 32-byte sectors. Where rows is not a multiple of 8,
// output row c starts c * rows floats into `out`, off a sector boundary, and a
// tile's segment of it would begin and end in the middle of sectors that the
// neighbouring tiles write the rest of: those partial-sector stores measured
// 20 % slower than a copy on an H200 (3001 x 4096). So the block of tile row b
// writes output row c from b * TILE_ROWS - m to b * TILE_ROWS + TILE_ROWS - m,
// m = (c * rows) % 8: every segment starts on a sector and the segments still
// tile each output row. The shared tile holds the 8 input rows above its own,
// loaded only where rows is not a multiple of 8 (m is 0 for every c
// otherwise), the second read of them from L2; the grid then has one more
// tile row where the last segment would stop short. This is decided per
// launch from rows, not a search axis, so a configuration measured at one
// size keeps its meaning at every other.
//
// Grid: (ceil(cols / TILE), ceil((rows + (rows % 8 ? 7 : 0)) / TILE_ROWS)).
// Tiles on the right and bottom edges are partial: their threads past the
// matrix skip the load, and the matching output elements do not exist.

template <int TILE, int TILE_ROWS, int ROWS, int PAD>
__global__ void __launch_bounds__((TILE < 32 ? TILE : 32) * ROWS)
    transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int BX = TILE < 32 ? TILE : 32;            // threads per block in x
  constexpr int HALO = 8;                              // input rows above the tile's own
  constexpr int SROWS = TILE_ROWS + HALO;              // rows of the shared tile
  constexpr int STEPS = (SROWS + ROWS - 1) / ROWS;     // load steps of ROWS rows (the last may be partial)
  static_assert(TILE % BX == 0 && TILE_ROWS % BX == 0, "a warp copies whole BX-float pieces of a row, both ways");
  static_assert(TILE_ROWS % ROWS == 0 && TILE % ROWS == 0, "each thread copies whole columns of pieces");
  __shared__ float tile[SROWS][TILE + PAD];

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: rows row0 .. row0 + SROWS of `in` (the halo only where rows % 8 != 0), columns col0 .. col0 + TILE.
  const int base = blockIdx.y * TILE_ROWS, row0 = base - HALO, col0 = blockIdx.x * TILE;
  const int row_lo = (rows & 7) != 0 ? 0 : base;
  // Every load is issued before the first shared store, so a thread has all
  // its copies in flight at once: the same tiles with each load guarded
  // together with its shared store measured 4-6 % slower on an H200 at
  // 4096 x 3001 and 4096 x 3072.
  float v[STEPS][TILE / BX];
#pragma unroll
  for (int k = 0; k < STEPS; ++k) {
    const int r = ty + k * ROWS, row = row0 + r;
#pragma unroll
    for (int c = 0; c < TILE / BX; ++c) {
      const int col = col0 + tx + c * BX;
      v[k][c] = r < SROWS && row >= row_lo && row < rows && col < cols ? in[static_cast<long long>(row) * cols + col]
                                                                        : 0.0f;
    }
  }
#pragma unroll
  for (int k = 0; k < STEPS; ++k)
#pragma unroll
    for (int c = 0; c < TILE / BX; ++c)
      if (ty + k * ROWS < SROWS) tile[ty + k * ROWS][tx + c * BX] = v[k][c]; // past the matrix: never read
  __syncthreads();
  // Write: the tile transposed. Thread (tx, ty) writes out(col0 + ty + k, base - m + tx + r),
  // which is in(base - m + tx + r, col0 + ty + k): the shared tile's column ty + k.
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const int out_row = col0 + ty + k; // a column index of `in`
    const int m = static_cast<int>((static_cast<long long>(out_row) * rows) & 7);
#pragma unroll
    for (int r = 0; r < TILE_ROWS; r += BX) {
      const int out_col = base - m + tx + r; // a row index of `in`
      if (out_row < cols && out_col >= 0 && out_col < rows)
        out[static_cast<long long>(out_row) * rows + out_col] = tile[HALO - m + tx + r][ty + k];
    }
  }
}

// The reference the candidates are verified against (verify.reference_kernel):
// one thread per output element in a grid-stride loop, nothing shared.
__global__ void transpose_reference(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const long long n = static_cast<long long>(rows) * cols;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long c = i / rows, r = i % rows; // out is cols x rows: out[c][r] = in[r][c]
    out[i] = in[r * cols + c];
  }
}
