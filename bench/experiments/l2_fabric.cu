// The L2's busiest unit for a copy and for filter_direct at several tap
// counts, under Nsight Compute (issue 15: the H200 filter at 21 taps).
// Launches each kernel 3 times after a clean L2 flush; profile with
//   ncu --clock-control none --metrics <list> ./l2_fabric
//   nvcc -O3 -std=c++17 -arch=sm_90 -DMEMTUNE_TAPS=21 -I. -o l2_fabric bench/experiments/l2_fabric.cu
#include <cuda_runtime.h>

#include <cstdio>

#include "bench/experiments/cold_timing.cuh"
#include "templates/filter/filter.cu"

__global__ void copy4(const float4* __restrict__ in, float4* __restrict__ out, long long n4) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = __ldg(in + i);
}
int main() {
  const int n = 16 << 20;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const long long flush_n4 = 2LL * prop.l2CacheSize / 16;
  float *flush, *in, *out, *sink;
  cudaMalloc(&flush, flush_n4 * 16);
  cudaMalloc(&in, 4LL * n);
  cudaMalloc(&out, 4LL * n);
  cudaMalloc(&sink, 64);
  cudaMemset(flush, 0, flush_n4 * 16);
  cudaMemset(in, 0, 4LL * n);
  float taps[TAPS] = {};
  cudaMemcpyToSymbol(memtune_filter_taps, taps, sizeof taps);
  for (int rep = 0; rep < 3; ++rep) {
    flush_kernel<<<prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<const float4*>(flush), flush_n4, sink);
    copy4<<<n / 4 / 256, 256>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n / 4);
    flush_kernel<<<prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<const float4*>(flush), flush_n4, sink);
    filter_direct_capped<128, 1, 0, 1, 16><<<n / 512, 128>>>(in, out, n, 0);
    flush_kernel<<<prop.multiProcessorCount * 8, 256>>>(reinterpret_cast<const float4*>(flush), flush_n4, sink);
    filter_direct_capped<512, 1, 0, 1, 4><<<n / 2048, 512>>>(in, out, n, 0);
  }
  std::printf("%s: %s\n", prop.name, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
