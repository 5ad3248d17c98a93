// The application's dot product, sum_i x[i] y[i] in one launch: each block
// reduces its grid-stride share, writes a partial sum, and the last block to
// finish adds the partial sums in block order (so a configuration's result
// does not depend on which block finishes last) and resets the counter for
// the next launch. `partial` and `done` are scratch: memtune owns them.
template <int BLOCK, int VEC>
__global__ void __launch_bounds__(BLOCK) dot(const float* __restrict__ x, const float* __restrict__ y,
                                             float* __restrict__ result, long long n, float* __restrict__ partial,
                                             unsigned int* __restrict__ done) {
  float sum = 0.0f;
  const long long vectors = n / VEC;
  const long long stride = (long long)gridDim.x * BLOCK;
  const long long first = (long long)blockIdx.x * BLOCK + threadIdx.x;
  for (long long v = first; v < vectors; v += stride) {
    if (VEC == 4) {
      const float4 a = reinterpret_cast<const float4*>(x)[v], b = reinterpret_cast<const float4*>(y)[v];
      sum += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    } else if (VEC == 2) {
      const float2 a = reinterpret_cast<const float2*>(x)[v], b = reinterpret_cast<const float2*>(y)[v];
      sum += a.x * b.x + a.y * b.y;
    } else {
      sum += x[v] * y[v];
    }
  }
  for (long long i = vectors * VEC + first; i < n; i += stride) sum += x[i] * y[i]; // the last n % VEC

  // The block's sum: warps by shuffles, then the warps' sums by the first warp.
  __shared__ float warp_sums[BLOCK / 32];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x >= 32) return;
  sum = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xFFFFFFFFu, sum, offset);

  __shared__ bool last;
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = sum;
    __threadfence(); // the partial sum is visible before the count says so
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncwarp();
  if (!last) return;
  __threadfence();
  float total = 0.0f;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += 32) total += ((volatile float*)partial)[b];
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xFFFFFFFFu, total, offset);
  if (threadIdx.x == 0) {
    *result = total;
    *done = 0; // ready for the next launch
  }
}
