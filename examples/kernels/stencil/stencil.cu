// One Jacobi step of a 2D 5-point stencil (heat diffusion) as an
// application would write it, on an nx x ny grid of floats stored row-major
// (x contiguous):
//   out(x, y) = c0 in(x, y) + c1 (in(x-1, y) + in(x+1, y) + in(x, y-1) + in(x, y+1))
// inside, and out = in on the boundary. c0 and c1 come from the caller.
// What is left to tune:
//   - the block shape (BX x BY threads),
//   - outputs per thread along y (each thread marches down its column keeping
//     the rows above, at and below in registers: one new row load per output),
//   - where neighbours come from: straight from global memory through the
//     caches, or from a tile of the block's rows and columns plus a halo
//     staged in shared memory.
namespace user {

enum class Loads { cache, smem };

// Every kernel here sums in this order, so all of them agree bit for bit.
__device__ __forceinline__ float update(float c0, float c1, float center, float left, float right, float up,
                                        float down) {
  return __fmaf_rn(c1, (left + right) + (up + down), c0 * center);
}

} // namespace user

template <int BX, int BY, int ITEMS, user::Loads LOADS>
__global__ void __launch_bounds__(BX * BY) stencil(float* __restrict__ out, const float* __restrict__ in, int nx, int ny,
                                                   float c0, float c1) {
  const int x = blockIdx.x * BX + threadIdx.x;
  const int y0 = (blockIdx.y * BY + threadIdx.y) * ITEMS; // this thread's first row
  if (LOADS == user::Loads::cache) {
    if (x >= nx || y0 >= ny) return;
    const bool inner_x = x > 0 && x < nx - 1;
    float up = y0 > 0 ? in[(size_t)(y0 - 1) * nx + x] : 0.0f;
    float center = in[(size_t)y0 * nx + x];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int y = y0 + k;
      if (y >= ny) break;
      const size_t at = (size_t)y * nx + x;
      const float down = y + 1 < ny ? in[at + nx] : 0.0f;
      out[at] = inner_x && y > 0 && y < ny - 1 ? user::update(c0, c1, center, in[at - 1], in[at + 1], up, down) : center;
      up = center;
      center = down;
    }
    return;
  }

  // Shared: the block's (BY * ITEMS) x BX outputs need rows [ry - 1, ry + BY * ITEMS] and columns [rx - 1, rx + BX].
  constexpr int kRows = BY * ITEMS + 2, kCols = BX + 2;
  __shared__ float tile[kRows][kCols];
  const int rx = blockIdx.x * BX - 1, ry = blockIdx.y * BY * ITEMS - 1;
  for (int i = threadIdx.y * BX + threadIdx.x; i < kRows * kCols; i += BX * BY) {
    const int r = i / kCols, c = i % kCols;
    const int gx = rx + c, gy = ry + r;
    tile[r][c] = gx >= 0 && gx < nx && gy >= 0 && gy < ny ? in[(size_t)gy * nx + gx] : 0.0f;
  }
  __syncthreads();
  if (x >= nx) return;
  const bool inner_x = x > 0 && x < nx - 1;
  const int c = threadIdx.x + 1;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int y = y0 + k;
    if (y >= ny) break;
    const int r = threadIdx.y * ITEMS + k + 1;
    const float center = tile[r][c];
    out[(size_t)y * nx + x] = inner_x && y > 0 && y < ny - 1
                                  ? user::update(c0, c1, center, tile[r][c - 1], tile[r][c + 1], tile[r - 1][c], tile[r + 1][c])
                                  : center;
  }
}

// The reference: one thread per point, every neighbour from global memory.
__global__ void stencil_reference(float* __restrict__ out, const float* __restrict__ in, int nx, int ny, float c0,
                                  float c1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const size_t at = (size_t)y * nx + x;
  out[at] = x > 0 && x < nx - 1 && y > 0 && y < ny - 1
                ? user::update(c0, c1, in[at], in[at - 1], in[at + 1], in[at - nx], in[at + nx])
                : in[at];
}
