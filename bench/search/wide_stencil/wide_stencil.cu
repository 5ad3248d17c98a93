// One Jacobi step of a 2D 5-point stencil on an nx x ny grid of floats
// (row-major, x contiguous), written with the knobs a CUDA engineer would try
// together, so that its space is large (more than 10^5 configurations, a few
// thousand compiled kernels) and its fast corner small: the recorded space
// of a user kernel in the search benchmark (docs/search.md). The same update
// as examples/kernels/stencil:
//   out(x, y) = c0 in(x, y) + c1 (in(x-1, y) + in(x+1, y) + in(x, y-1) + in(x, y+1))
// inside, out = in on the boundary. The knobs:
//   - block shape BX x BY; each thread computes VX columns (BX apart, so a
//     warp's accesses stay coalesced) and ITEMS rows (marching down a column,
//     the rows above and below in registers);
//   - neighbours through the caches (plain or __ldg loads) or from a shared
//     tile with a halo;
//   - plain or streaming (__stcs) stores;
//   - __launch_bounds__' minimum blocks per SM (registers against occupancy);
//   - the grid's y extent (a launch choice, no recompilation): every tile
//     row, or about WAVES blocks per SM with each block looping over tile
//     rows.
namespace wide {

enum class Loads { cache, ldg, smem };
enum class Stores { plain, streaming };

__device__ __forceinline__ float update(float c0, float c1, float center, float left, float right, float up,
                                        float down) {
  return __fmaf_rn(c1, (left + right) + (up + down), c0 * center);
}

template <Loads L> __device__ __forceinline__ float load(const float* p) {
  if constexpr (L == Loads::ldg) return __ldg(p);
  else return *p;
}

template <Stores S> __device__ __forceinline__ void store(float* p, float v) {
  if constexpr (S == Stores::streaming) __stcs(p, v);
  else *p = v;
}

} // namespace wide

template <int BX, int BY, int VX, int ITEMS, wide::Loads LOADS, wide::Stores STORES, int MINB>
__global__ void __launch_bounds__(BX * BY, MINB)
    wide_stencil(float* __restrict__ out, const float* __restrict__ in, int nx, int ny, float c0, float c1) {
  constexpr int kTileX = BX * VX, kTileY = BY * ITEMS;
  const int tiles_y = (ny + kTileY - 1) / kTileY;
  const int x_first = blockIdx.x * kTileX + threadIdx.x; // column j of this thread: x_first + j * BX

  if constexpr (LOADS != wide::Loads::smem) {
    for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
      const int y0 = ty * kTileY + threadIdx.y * ITEMS;
      if (y0 >= ny) continue;
#pragma unroll
      for (int j = 0; j < VX; ++j) {
        const int x = x_first + j * BX;
        if (x >= nx) break;
        const bool inner_x = x > 0 && x < nx - 1;
        float up = y0 > 0 ? wide::load<LOADS>(&in[(size_t)(y0 - 1) * nx + x]) : 0.0f;
        float center = wide::load<LOADS>(&in[(size_t)y0 * nx + x]);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
          const int y = y0 + k;
          if (y >= ny) break;
          const size_t at = (size_t)y * nx + x;
          const float down = y + 1 < ny ? wide::load<LOADS>(&in[at + nx]) : 0.0f;
          const float value = inner_x && y > 0 && y < ny - 1
                                  ? wide::update(c0, c1, center, wide::load<LOADS>(&in[at - 1]),
                                                 wide::load<LOADS>(&in[at + 1]), up, down)
                                  : center;
          wide::store<STORES>(&out[at], value);
          up = center;
          center = down;
        }
      }
    }
    return;
  } else {
    // The tile's kTileY x kTileX outputs need rows [ry - 1, ry + kTileY] and
    // columns [rx - 1, rx + kTileX]. No thread leaves the loop early: every
    // one reaches both barriers of every tile row.
    constexpr int kRows = kTileY + 2, kCols = kTileX + 2;
    __shared__ float tile[kRows][kCols];
    const int rx = blockIdx.x * kTileX - 1;
    for (int ty = blockIdx.y; ty < tiles_y; ty += gridDim.y) {
      const int ry = ty * kTileY - 1;
      for (int i = threadIdx.y * BX + threadIdx.x; i < kRows * kCols; i += BX * BY) {
        const int r = i / kCols, c = i % kCols;
        const int gx = rx + c, gy = ry + r;
        tile[r][c] = gx >= 0 && gx < nx && gy >= 0 && gy < ny ? in[(size_t)gy * nx + gx] : 0.0f;
      }
      __syncthreads();
#pragma unroll
      for (int j = 0; j < VX; ++j) {
        const int x = x_first + j * BX;
        const int c = threadIdx.x + j * BX + 1;
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
          const int y = ty * kTileY + threadIdx.y * ITEMS + k;
          if (x >= nx || y >= ny) continue;
          const int r = threadIdx.y * ITEMS + k + 1;
          const float center = tile[r][c];
          const float value = x > 0 && x < nx - 1 && y > 0 && y < ny - 1
                                  ? wide::update(c0, c1, center, tile[r][c - 1], tile[r][c + 1], tile[r - 1][c],
                                                 tile[r + 1][c])
                                  : center;
          wide::store<STORES>(&out[(size_t)y * nx + x], value);
        }
      }
      __syncthreads(); // the next tile row overwrites the tile
    }
  }
}

// The reference: one thread per point, every neighbour from global memory.
__global__ void wide_stencil_reference(float* __restrict__ out, const float* __restrict__ in, int nx, int ny, float c0,
                                       float c1) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const size_t at = (size_t)y * nx + x;
  out[at] = x > 0 && x < nx - 1 && y > 0 && y < ny - 1
                ? wide::update(c0, c1, in[at], in[at - 1], in[at + 1], in[at - nx], in[at + nx])
                : in[at];
}
