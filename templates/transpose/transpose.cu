// memtune transpose template: out = in^T for a rows x cols float matrix
// (row-major: in(i, j) = in[i * cols + j], out(j, i) = out[j * rows + i]),
// any sizes. Compiled by NVRTC at run time.
//
// Background: NVIDIA's "Optimizing Matrix Transpose in CUDA" (Ruetsch and
// Micikevicius, 2008). A naive transpose reads rows and writes columns: one
// of the two is uncoalesced. The tiled kernel stages a TILE x TILE tile in
// shared memory: a block reads the tile's rows coalesced, and writes the
// tile's columns, read from shared memory, as rows of the output, coalesced
// too. Reading a column of a TILE x TILE float array puts the lanes of a warp
// TILE words apart, all in one bank when TILE is a multiple of 32 (a 32-way
// conflict); one float of padding per row (TILE + 1 words) spreads them over
// all 32 banks. That padding is the PAD axis.
//
// Template parameters (the search axes):
//   TILE  tile side in elements; the block is TILE x ROWS threads
//   ROWS  block rows: each thread copies TILE / ROWS elements of its column
//         of the tile (the article's BLOCK_ROWS)
//   PAD   floats of padding per shared tile row (0, or 1 as in the article)
//
// Grid: (ceil(cols / TILE), ceil(rows / TILE)); block (TILE, ROWS). Tiles on
// the right and bottom edges are partial: their threads past the matrix skip
// the load, and the matching output elements do not exist.

template <int TILE, int ROWS, int PAD>
__global__ void __launch_bounds__(TILE * ROWS)
    transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  static_assert(TILE % ROWS == 0, "a thread copies TILE / ROWS elements");
  __shared__ float tile[TILE][TILE + PAD];

  const int tx = threadIdx.x, ty = threadIdx.y;
  // Read: the block's tile of `in`, rows row0 .. row0 + TILE, columns col0 .. col0 + TILE.
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  const int col = col0 + tx;
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const int row = row0 + ty + k;
    if (row < rows && col < cols) tile[ty + k][tx] = in[static_cast<long long>(row) * cols + col];
  }
  __syncthreads();
  // Write: the same tile transposed. Thread (tx, ty) writes out(col0 + ty + k, row0 + tx),
  // which is in(row0 + tx, col0 + ty + k): column tx of the shared tile.
  const int out_col = row0 + tx; // a row index of `in`
#pragma unroll
  for (int k = 0; k < TILE; k += ROWS) {
    const int out_row = col0 + ty + k; // a column index of `in`
    if (out_row < cols && out_col < rows) out[static_cast<long long>(out_row) * rows + out_col] = tile[tx][ty + k];
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
