// y = a x + y, ITEMS consecutive elements per thread (the README's example).
template <int BLOCK, int ITEMS>
__global__ void saxpy(float* y, const float* __restrict__ x, float a, int n) {
  const long long base = ((long long)blockIdx.x * BLOCK + threadIdx.x) * ITEMS;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (base + k < n) y[base + k] = a * x[base + k] + y[base + k];
}
