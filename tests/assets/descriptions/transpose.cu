// A tiled matrix transpose, written as a user would: out = in^T for a
// rows x cols row-major float matrix. A TILE x TILE block of `in` is staged
// in shared memory (PAD extra columns avoid bank conflicts on the column
// reads); each thread copies TILE / ROWS elements.
template <int TILE, int ROWS, int PAD>
__global__ void transpose(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
