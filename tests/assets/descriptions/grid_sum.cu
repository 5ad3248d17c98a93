// A sum in one launch: each block reduces its share, the whole grid meets at
// grid.sync(), block 0 adds the blocks' partial sums. Needs a cooperative
// launch (every block resident at once): "launch": {"cooperative": true}.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <int BLOCK> __device__ float block_sum(float v, float* s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = BLOCK / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  return s[0];
}

template <int BLOCK>
__global__ void grid_sum(const float* __restrict__ in, float* __restrict__ partial, float* __restrict__ out, int n) {
  __shared__ float s[BLOCK];
  float v = 0.0f;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
  const float mine = block_sum<BLOCK>(v, s);
  if (threadIdx.x == 0) partial[blockIdx.x] = mine;
  cg::this_grid().sync();
  if (blockIdx.x != 0) return;
  __syncthreads(); // s is reused
  float t = 0.0f;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) t += partial[b];
  const float total = block_sum<BLOCK>(t, s);
  if (threadIdx.x == 0) out[0] = total;
}
