// Does prefetching into L2 close the H200 filter's gap to the copy (issue 15)?
//
// filter_direct at 21 taps runs at copy speed on the H100 and at ~95 % of a
// same-size copy on the H200, whose DRAM needs ~1.4x the H100's bytes in
// flight at the same latency. A warp of filter_direct keeps its window loads
// in flight only until they land, then computes 84 FMAs with nothing in
// flight; more loads per thread (CHUNKS, TILES) cost registers and warps.
// A prefetch into L2 costs no register and no shared memory: block b asks the
// L2 for the tile block b + DIST will read (one wave or so later), so the
// DRAM stream runs ahead of the warps and their own loads hit L2.
//
// Variants (runtime `mode`, uniform per launch):
//   0  filter_direct as in the template
//   1  thread 0 issues cp.async.bulk.prefetch.L2 for the whole future tile (sm_90)
//   2  each thread whose 128-byte line lies in the future tile issues
//      prefetch.global.L2 for it
//   3, 4  as 1, 2, after the block's stores (no register live across the body)
// Timing as memtune's: L2 flushed clean before every sample (a kernel reads
// 2x L2), CUDA events, median of 50; the same-size copy (cudaMemcpy of n
// floats, n read + n written) in the same run.
//   nvcc -O3 -std=c++17 -arch=sm_90 -DMEMTUNE_TAPS=21 -I. -o filter_l2_prefetch \
//        bench/experiments/filter_l2_prefetch.cu && ./filter_l2_prefetch
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "bench/experiments/cold_timing.cuh"
#include "templates/filter/filter.cu"
#include "bench/experiments/filter_bench.cuh"


template <int BLOCK, int CHUNKS, int MODE>
__device__ __forceinline__ void prefetch_future_tile(const float* in, int n, int dist) {
  constexpr long long kTile = static_cast<long long>(BLOCK) * 4 * CHUNKS;
  const long long base = (static_cast<long long>(blockIdx.x) + dist) * kTile;
  if (MODE == 0 || base >= n) return;
  const long long bytes = (kTile < n - base ? kTile : n - base) * 4;
  if (MODE == 1) {
    if (threadIdx.x == 0)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(in + base), "r"(static_cast<unsigned>(bytes & ~15LL))
                   : "memory");
  } else {
    const long long line = static_cast<long long>(threadIdx.x) * 128;
    if (line < bytes) asm volatile("prefetch.global.L2 [%0];" ::"l"(reinterpret_cast<const char*>(in + base) + line));
  }
}

template <int BLOCK, int CHUNKS, int SHFL, int MINB, int MODE>
__global__ void __launch_bounds__(BLOCK, MINB)
    filter_direct_pf(const float* __restrict__ in, float* __restrict__ out, int n, int dist) {
  if constexpr (MODE <= 2) prefetch_future_tile<BLOCK, CHUNKS, MODE>(in, n, dist);
  filter_direct_body<BLOCK, CHUNKS, SHFL, 1>(in, out, n);
  if constexpr (MODE > 2) prefetch_future_tile<BLOCK, CHUNKS, MODE - 2>(in, n, dist);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16 << 20;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  ColdTimer timer;
  const int sms = prop.multiProcessorCount;
  FilterBench b(n, timer);
  float *in = b.in, *out = b.out;
  const float copy = b.copy_us;
  std::printf("%s, %d SMs, L2 %d MiB, n = %d, taps = %d; same-size copy %.2f us (%.0f GB/s)\n", prop.name, sms,
              prop.l2CacheSize >> 20, n, TAPS, copy, 8.0 * n / (copy * 1e3));
  std::printf("%-28s %5s %7s %9s %12s\n", "kernel", "mode", "dist", "us", "% of copy");

  auto run = [&](const char* name, auto kernel, int block, int chunks, int mode, int dist) {
    if (dist < 0) return;
    const int grid = (n + block * 4 * chunks - 1) / (block * 4 * chunks);
    CHECK(cudaMemset(out, 0, 4LL * n));
    kernel<<<grid, block>>>(in, out, n, dist);
    CHECK(cudaDeviceSynchronize());
    if (const long long i = b.first_mismatch(); i >= 0) {
      std::printf("%s mode %d dist %d: WRONG at %lld (%g vs %g)\n", name, mode, dist, i, b.h_out[i], b.h_ref[i]);
      return;
    }
    const float us = timer.median_us([&] { kernel<<<grid, block>>>(in, out, n, dist); });
    std::printf("%-28s %5d %7d %9.2f %11.1f%%\n", name, mode, dist, us, 100.0 * copy / us);
  };
  // Blocks resident on the whole GPU at 64 warps per SM: one wave.
  auto sweep = [&](auto mode_tag) {
    constexpr int M = decltype(mode_tag)::value;
    for (int waves_x4 : {1, 2, 4, 8}) {
      if (M == 0 && waves_x4 > 1) continue;
      run("direct 128 x4 mw64", filter_direct_pf<128, 1, 0, 16, M>, 128, 1, M, sms * 16 * waves_x4 / 4);
      run("direct 256 x4 mw64", filter_direct_pf<256, 1, 0, 8, M>, 256, 1, M, sms * 8 * waves_x4 / 4);
      run("shfl 128 x4 mw64", filter_direct_pf<128, 1, 1, 16, M>, 128, 1, M, sms * 16 * waves_x4 / 4);
      run("direct 128 x8 mw32", filter_direct_pf<128, 2, 0, 8, M>, 128, 2, M, sms * 8 * waves_x4 / 4);
      run("direct 128 x4 mw48", filter_direct_pf<128, 1, 0, 12, M>, 128, 1, M, sms * 12 * waves_x4 / 4);
    }
  };
  sweep(std::integral_constant<int, 0>{});
  sweep(std::integral_constant<int, 1>{});
  sweep(std::integral_constant<int, 2>{});
  sweep(std::integral_constant<int, 3>{});
  sweep(std::integral_constant<int, 4>{});
  return 0;
}
