// The offset probe's kernel (probe/device/probes.cu) on its own, and
// variants of it that move the misalignment to one side of the access, to
// find which side makes offsets 16..31 slower than 1..15:
//   rmw:   a[i + S] += 1          (the probe: read and write misaligned)
//   read:  b[i] = a[i + S] + 1    (misaligned read, aligned write)
//   write: b[i + S] = a[i] + 1    (aligned read, misaligned write)
//   copy:  b[i + S] = a[i + S] + 1 (both misaligned, two arrays)
//   desc:  the probe with the threads in reverse order (thread t takes
//          i = n - 1 - t): a warp that runs earlier now touches the higher
//          addresses, so a split that comes from which of two warps sharing a
//          line gets there first should swap sides.
//   ldcg:  the probe with its load through L2 only (__ldcg: no L1 allocation)
//   stcg:  the probe with its store marked .cg (__stcg)
//   b64, b1024: the probe in blocks of 64 or 1024 threads instead of 256
//          (b64's 512K blocks are bound by the block launch rate at any S)
// On the H100 only the in-place variants (rmw, desc, ldcg, stcg, b1024) split
// at 16; read, write and copy do not (docs/results.md).
// `offset_counters VARIANT S` runs one launch over n = 32M floats (as memtune
// probe does) after one warm-up launch and an L2 flush, so
// `ncu --launch-skip 1 --launch-count 1` profiles a cold launch.
// `offset_counters` alone times every variant and S in 0..32 with CUDA events
// (median of 21, L2 flushed before each) and prints one line per pair.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void probe_offset(float* a, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) a[i + s] = a[i + s] + 1.0f;
}

__global__ void offset_read(const float* a, float* b, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i + s] + 1.0f;
}

__global__ void offset_write(const float* a, float* b, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) b[i + s] = a[i] + 1.0f;
}

__global__ void offset_copy(const float* a, float* b, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) b[i + s] = a[i + s] + 1.0f;
}

__global__ void offset_desc(float* a, int s, unsigned long long n) {
  const unsigned long long t = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (t < n) {
    const unsigned long long i = n - 1 - t;
    a[i + s] = a[i + s] + 1.0f;
  }
}

__global__ void offset_ldcg(float* a, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) a[i + s] = __ldcg(a + i + s) + 1.0f;
}

__global__ void offset_stcg(float* a, int s, unsigned long long n) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) __stcg(a + i + s, a[i + s] + 1.0f);
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

const char* const variants[] = {"rmw", "read", "write", "copy", "desc", "ldcg", "stcg", "b64", "b1024"};
constexpr int variant_count = 9;

void launch(int variant, unsigned grid, int block, float* a, float* b, int s, unsigned long long n) {
  switch (variant) {
  case 0: probe_offset<<<grid, block>>>(a, s, n); break;
  case 1: offset_read<<<grid, block>>>(a, b, s, n); break;
  case 2: offset_write<<<grid, block>>>(a, b, s, n); break;
  case 3: offset_copy<<<grid, block>>>(a, b, s, n); break;
  case 4: offset_desc<<<grid, block>>>(a, s, n); break;
  case 5: offset_ldcg<<<grid, block>>>(a, s, n); break;
  case 6: offset_stcg<<<grid, block>>>(a, s, n); break;
  case 7: probe_offset<<<grid * (block / 64), 64>>>(a, s, n); break; // same n, other block size
  default: probe_offset<<<grid / (1024 / block), 1024>>>(a, s, n); break;
  }
}

int main(int argc, char** argv) {
  const unsigned long long n = 32ull << 20;
  const int block = 256;
  float *a = nullptr, *b = nullptr, *f = nullptr;
  const size_t flush_count = 64ull << 20; // 256 MB, five times the L2
  CHECK(cudaMalloc(&a, (n + 64) * sizeof(float)));
  CHECK(cudaMalloc(&f, flush_count * sizeof(float)));
  CHECK(cudaMalloc(&b, (n + 64) * sizeof(float)));
  CHECK(cudaMemset(a, 0, (n + 64) * sizeof(float)));
  CHECK(cudaMemset(b, 0, (n + 64) * sizeof(float)));
  CHECK(cudaMemset(f, 0, flush_count * sizeof(float)));
  const unsigned grid = static_cast<unsigned>(n / block);
  if (argc > 2) {
    int variant = 0;
    while (variant < variant_count && std::strcmp(variants[variant], argv[1]) != 0) ++variant;
    if (variant == variant_count) {
      std::fprintf(stderr, "unknown variant %s (rmw, read, write, copy, desc, ldcg, stcg, b64, b1024)\n", argv[1]);
      return 2;
    }
    const int s = std::atoi(argv[2]);
    launch(variant, grid, block, a, b, s, n);
    flush<<<1024, 256>>>(f, flush_count);
    launch(variant, grid, block, a, b, s, n);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  for (int variant = 0; variant < variant_count; ++variant) {
    for (int s = 0; s <= 32; ++s) {
      std::vector<float> ms;
      for (int r = 0; r < 22; ++r) {
        flush<<<1024, 256>>>(f, flush_count);
        CHECK(cudaEventRecord(start));
        launch(variant, grid, block, a, b, s, n);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, start, stop));
        if (r > 0) ms.push_back(t); // the first is the warm-up
      }
      std::sort(ms.begin(), ms.end());
      std::printf("%-5s offset %2d  %.2f us\n", variants[variant], s, ms[ms.size() / 2] * 1000.0);
    }
  }
  return 0;
}
