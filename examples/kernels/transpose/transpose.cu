// A matrix transpose as an application would write it: out (cols x rows) =
// in^T (rows x cols), both row-major floats, any sizes. A block copies a
// TILE x TILE tile through shared memory so that reads of `in` and writes of
// `out` are both coalesced. What is left to tune:
//   - the tile and the rows of threads per block (each thread copies TILE / ROWS elements),
//   - how the tile avoids shared-memory bank conflicts when it is read by
//     columns: not at all, one padding column, or an XOR swizzle of the column,
//   - the order blocks walk the matrix: row by row, or along diagonals, which
//     spreads concurrent blocks over memory partitions (Ruetsch and
//     Micikevicius, "Optimizing Matrix Transpose in CUDA", 2009).
namespace user {

enum class Smem { plain, pad, swizzle };
enum class Order { row, diagonal };

template <int TILE, Smem SMEM> struct Tile {
  static constexpr int kWidth = SMEM == Smem::pad ? TILE + 1 : TILE;
  static constexpr int kSwizzleMask = (TILE < 32 ? TILE : 32) - 1;
  // Where element (r, c) of the tile lives in shared memory.
  static __device__ __forceinline__ int at(int r, int c) {
    return r * kWidth + (SMEM == Smem::swizzle ? (c ^ (r & kSwizzleMask)) : c);
  }
};

} // namespace user

template <int TILE, int ROWS, user::Smem SMEM, user::Order ORDER>
__global__ void __launch_bounds__(TILE * ROWS) transpose(float* __restrict__ out, const float* __restrict__ in, int rows,
                                                          int cols) {
  using T = user::Tile<TILE, SMEM>;
  __shared__ float tile[TILE * T::kWidth];

  int bx = blockIdx.x, by = blockIdx.y;
  if (ORDER == user::Order::diagonal) {
    // A bijection of the grid onto itself for any grid shape.
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    by = bid % gridDim.y;
    bx = (bid / gridDim.y + by) % gridDim.x;
  }

  int x = bx * TILE + threadIdx.x; // column of in
  int y = by * TILE + threadIdx.y; // row of in
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[T::at(threadIdx.y + j, threadIdx.x)] = in[(size_t)(y + j) * cols + x];
  __syncthreads();

  x = by * TILE + threadIdx.x; // column of out = row of in
  y = bx * TILE + threadIdx.y; // row of out = column of in
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[T::at(threadIdx.x, threadIdx.y + j)];
}
