// What a small memory-bound kernel can reach once the L2 is flushed (why the
// matvec col 2048² bar is mis-set; docs/results.md): the mat-vec of a
// 2048 x 2048 float matrix must READ its
// 16 MiB from DRAM, while the "same-size copy" memtune compares it with reads
// half its bytes and writes the other half into an L2 of 50 MiB, from which
// they reach DRAM after the timed region. This program times, L2 flushed
// clean before every sample (a kernel reads a buffer of 2x L2), CUDA events,
// median of 50:
//   - a device-to-device copy of S/2 bytes (S bytes read + written: memtune's same-size copy),
//   - a read-only kernel over S bytes (float4 loads, 4 in flight per thread,
//     grid of 1..16 blocks of 256 threads per SM; the best grid is printed),
//   - an empty kernel (launch and event overhead),
// for S = 16 MiB + 16 KiB (the 2048^2 mat-vec's bytes) and, for scale,
// S = 256 MiB.
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -o small_read_floor bench/experiments/small_read_floor.cu && ./small_read_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench/experiments/cold_timing.cuh"

// Reads n float4s, 4 independent loads in flight per thread; one float per
// block keeps the loads alive.
__global__ void read_kernel(const float4* __restrict__ in, long long n, float* __restrict__ sink) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  float acc = 0.0f;
  long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const float4 a = __ldg(in + i), b = __ldg(in + i + stride), c = __ldg(in + i + 2 * stride),
                 d = __ldg(in + i + 3 * stride);
    acc += a.x + a.y + a.z + a.w + b.x + b.y + b.z + b.w + c.x + c.y + c.z + c.w + d.x + d.y + d.z + d.w;
  }
  for (; i < n; i += stride) {
    const float4 a = __ldg(in + i);
    acc += a.x + a.y + a.z + a.w;
  }
  if (acc == 12345.678f) sink[blockIdx.x] = acc; // never true on the fill below; the compiler cannot know
}

__global__ void empty_kernel() {}

int main() {
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const long long big = 256LL << 20;
  ColdTimer timer;
  float *src = nullptr, *dst = nullptr, *sink = nullptr;
  CHECK(cudaMalloc(&src, big));
  CHECK(cudaMalloc(&dst, big));
  CHECK(cudaMalloc(&sink, 1 << 20));
  fill_kernel<<<1024, 256>>>(src, big / 4);
  CHECK(cudaDeviceSynchronize());
  const int sms = prop.multiProcessorCount;
  const auto time_us = [&](auto&& what) { return timer.median_us(what); }; // cold_timing.cuh

  std::printf("%s, %d SMs, L2 %d MiB; clean flush before every sample, median of 50\n", prop.name, sms,
              prop.l2CacheSize >> 20);
  std::printf("%-14s %12s %12s %14s %14s %12s\n", "bytes S", "empty us", "copy us", "copy GB/s", "read us",
              "read GB/s");
  for (long long bytes : {(16LL << 20) + (16LL << 10), big}) {
    const float empty = time_us([&] { empty_kernel<<<1, 32>>>(); });
    const float copy = time_us([&] { CHECK(cudaMemcpyAsync(dst, src, bytes / 2, cudaMemcpyDeviceToDevice)); });
    float best_read = 1e30f;
    int best_grid = 0;
    for (int per_sm : {1, 2, 4, 8, 16}) {
      const float r = time_us(
          [&] { read_kernel<<<sms * per_sm, 256>>>(reinterpret_cast<const float4*>(src), bytes / 16, sink); });
      if (r < best_read) best_read = r, best_grid = per_sm;
    }
    std::printf("%-14lld %12.2f %12.2f %14.0f %14.2f %12.0f   (read: %d blocks of 256 per SM)\n", bytes, empty,
                copy, bytes / (copy * 1e3), best_read, bytes / (best_read * 1e3), best_grid);
  }
  return 0;
}
