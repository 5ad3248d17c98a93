// The offset probe's kernel (tuner/probe_sources/probes.cu) on its own, for
// Nsight Compute: `offset_counters S` runs one launch of a[i + S] += 1 over
// n = 32M floats (as memtune probe does) after one warm-up launch and an L2
// flush, so `ncu --launch-skip 1 --launch-count 1` profiles a cold launch.
// `offset_counters` alone times every S in 0..32 with CUDA events (median of
// 21, L2 flushed before each) and prints one line per S.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void probe_offset(float* a, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) a[i + s] = a[i + s] + 1.0f;
}

__global__ void flush(float* f, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    f[i] += 1.0f;
}

#define CHECK(x)                                                                                     \
  do {                                                                                               \
    cudaError_t e = (x);                                                                             \
    if (e != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e));               \
      std::exit(1);                                                                                  \
    }                                                                                                \
  } while (0)

int main(int argc, char** argv) {
  const unsigned long long n = 32ull << 20;
  const int block = 256;
  float *a = nullptr, *f = nullptr;
  const size_t flush_count = 64ull << 20; // 256 MB, five times the L2
  CHECK(cudaMalloc(&a, (n + 64) * sizeof(float)));
  CHECK(cudaMalloc(&f, flush_count * sizeof(float)));
  CHECK(cudaMemset(a, 0, (n + 64) * sizeof(float)));
  CHECK(cudaMemset(f, 0, flush_count * sizeof(float)));
  const unsigned grid = static_cast<unsigned>(n / block);
  if (argc > 1) {
    const int s = std::atoi(argv[1]);
    probe_offset<<<grid, block>>>(a, s, n);
    flush<<<1024, 256>>>(f, flush_count);
    probe_offset<<<grid, block>>>(a, s, n);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int s = 0; s <= 32; ++s) {
    std::vector<float> ms;
    for (int r = 0; r < 22; ++r) {
      flush<<<1024, 256>>>(f, flush_count);
      CHECK(cudaEventRecord(start));
      probe_offset<<<grid, block>>>(a, s, n);
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      if (r > 0) ms.push_back(t); // the first is the warm-up
    }
    std::sort(ms.begin(), ms.end());
    std::printf("offset %2d  %.2f us\n", s, ms[ms.size() / 2] * 1000.0);
  }
  return 0;
}
