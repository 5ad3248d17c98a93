// y = a * x + y in half precision, two halves per thread access (__half2),
// ITEMS accesses per thread a block apart.
#include <cuda_fp16.h>

template <int ITEMS>
__global__ void haxpy(int n2, __half a, const __half2* __restrict__ x, __half2* __restrict__ y) {
  const __half2 a2 = __half2half2(a);
  int i = blockIdx.x * blockDim.x * ITEMS + threadIdx.x;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k, i += blockDim.x)
    if (i < n2) y[i] = __hfma2(a2, x[i], y[i]);
}
