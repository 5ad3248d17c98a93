// Shared by the standalone experiments in this folder (each compiled alone
// with nvcc): memtune's cold-timing protocol in a few lines. The L2 flushed
// clean before every sample (a read of 2x the L2), CUDA events around the
// timed call, the median of 50 samples after 5 warm-ups.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    cudaError_t e_ = (call);                                                                          \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

// p[i] = a small value that varies with i.
__global__ void fill_kernel(float* p, long long n) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    p[i] = static_cast<float>(i % 1021) * 1e-3f - 0.5f;
}

// Reads n float4s; the sum is never stored (the fill makes it != 12345.678).
__global__ void flush_kernel(const float4* __restrict__ in, long long n, float* sink) {
  float acc = 0.0f;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float4 v = __ldg(in + i);
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.678f) sink[0] = acc;
}

class ColdTimer {
public:
  ColdTimer() {
    cudaDeviceProp prop{};
    CHECK(cudaGetDeviceProperties(&prop, 0));
    sms_ = prop.multiProcessorCount;
    flush_floats_ = 2LL * prop.l2CacheSize / 4;
    CHECK(cudaMalloc(&flush_, flush_floats_ * 4));
    CHECK(cudaMalloc(&sink_, 64));
    fill_kernel<<<1024, 256>>>(flush_, flush_floats_);
    CHECK(cudaEventCreate(&t0_));
    CHECK(cudaEventCreate(&t1_));
  }
  // Median microseconds of what() over 50 cold samples.
  template <class F> float median_us(F&& what) {
    std::vector<float> v;
    for (int s = 0; s < 55; ++s) {
      flush_kernel<<<sms_ * 8, 256>>>(reinterpret_cast<const float4*>(flush_), flush_floats_ / 4, sink_);
      CHECK(cudaEventRecord(t0_));
      what();
      CHECK(cudaEventRecord(t1_));
      CHECK(cudaEventSynchronize(t1_));
      CHECK(cudaGetLastError());
      float ms = 0;
      CHECK(cudaEventElapsedTime(&ms, t0_, t1_));
      if (s >= 5) v.push_back(ms * 1000.0f);
    }
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
  int sms() const { return sms_; }

private:
  int sms_ = 0;
  long long flush_floats_ = 0;
  float* flush_ = nullptr;
  float* sink_ = nullptr;
  cudaEvent_t t0_{}, t1_{};
};
