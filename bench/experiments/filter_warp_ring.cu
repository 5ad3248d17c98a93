// A per-warp cp.async ring for the filter: can it beat filter_direct on the
// H200 (issue 15)?
//
// filter_direct's warps load a window, wait, compute 84 FMAs, store: while a
// warp computes it keeps nothing in flight, and more loads per thread cost
// registers (tiles, chunks). Here each warp owns a ring of STAGES tiles in
// shared memory, filled by cp.async (global -> shared, no register held):
// a warp keeps STAGES - 1 tiles in flight while it computes the current one,
// and no block barrier couples it to the other warps (__syncwarp only).
// A tile: 128 outputs (4 a lane) and their window, 128 + 2H floats
// (H = RADIUS rounded up to 4), 38 float4s at 21 taps. The warps walk the
// tiles grid-stride (at any time the GPU works on one region of the signal).
// Each lane reads its window of 4 + 2H floats from the stage (float4 shared
// loads) and sums in filter_direct's order, so the outputs are bit-identical.
//
// Timing as memtune's: L2 flushed clean before every sample (a kernel reads
// 2x L2), CUDA events, median of 50; the same-size copy in the same run;
// filter_direct (the template's best H200/H100 configurations) beside.
//   nvcc -O3 -std=c++17 -arch=sm_90 -DMEMTUNE_TAPS=21 -I. -o filter_warp_ring \
//        bench/experiments/filter_warp_ring.cu && ./filter_warp_ring [n]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/cold_timing.cuh"
#include "templates/filter/filter.cu"
#include "bench/experiments/filter_bench.cuh"


__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// 16 bytes global -> shared; src_bytes 0 writes zeros.
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, unsigned src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }

constexpr int kTileOut = 128;                  // outputs per warp tile
constexpr int kStageFloats = kTileOut + 2 * kWindowHalo;
constexpr int kStageVec = kStageFloats / 4;    // float4s per stage

// Tile `tile`'s window into the stage at shared address `stage` (this lane's part).
__device__ __forceinline__ void issue_tile(const float* __restrict__ in, int n, long long tile, unsigned stage, int lane,
                                           float* stage_ptr) {
  const long long first = tile * kTileOut - kWindowHalo; // in[first] is stage[0]
#pragma unroll
  for (int v = lane; v < kStageVec; v += 32) {
    const long long i = first + 4 * v;
    if (i >= 0 && i + 4 <= n) {
      cp_async16(stage + 16u * v, in + i, 16u);
    } else if (i + 4 <= 0 || i >= n) {
      cp_async16(stage + 16u * v, in, 0u); // zeros (src not read)
    } else { // straddles 0 or n (n % 4 != 0): four floats, synchronously
      for (int e = 0; e < 4; ++e) stage_ptr[4 * v + e] = (i + e >= 0 && i + e < n) ? __ldg(in + i + e) : 0.0f;
    }
  }
}

template <int BLOCK, int STAGES, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) filter_warp_ring(const float* __restrict__ in, float* __restrict__ out, int n) {
  constexpr int WPB = BLOCK / 32;
  extern __shared__ float4 ring_smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* my_ring = reinterpret_cast<float*>(ring_smem) + warp * STAGES * kStageFloats;
  const unsigned ring = smem_addr(my_ring);
  const long long tiles = (static_cast<long long>(n) + kTileOut - 1) / kTileOut;
  const long long stride = static_cast<long long>(gridDim.x) * WPB;
  long long tile = static_cast<long long>(blockIdx.x) * WPB + warp;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    const long long t = tile + s * stride;
    if (t < tiles) issue_tile(in, n, t, ring + 4u * s * kStageFloats, lane, my_ring + s * kStageFloats);
    cp_commit();
  }
  int cur = 0;
  for (; tile < tiles; tile += stride) {
    const long long ahead = tile + (STAGES - 1) * stride;
    const int ahead_stage = cur == 0 ? STAGES - 1 : cur - 1; // the stage read one tile ago
    if (ahead < tiles)
      issue_tile(in, n, ahead, ring + 4u * ahead_stage * kStageFloats, lane, my_ring + ahead_stage * kStageFloats);
    cp_commit();
    cp_wait<STAGES - 1>(); // this lane's copies of `tile` have landed
    __syncwarp();          // and every lane's
    constexpr int NW = 1 + 2 * kWindowHalo / 4;
    const float4* w4 = reinterpret_cast<const float4*>(my_ring + cur * kStageFloats) + lane;
    float w[4 * NW];
#pragma unroll
    for (int i = 0; i < NW; ++i) {
      const float4 v = w4[i];
      w[4 * i + 0] = v.x;
      w[4 * i + 1] = v.y;
      w[4 * i + 2] = v.z;
      w[4 * i + 3] = v.w;
    }
    float acc[4];
    fir4_at<kWindowHalo - RADIUS>(w, acc);
    store4_clipped(out, tile * kTileOut + 4 * lane, n, acc);
    __syncwarp(); // every lane has read the stage before a later issue overwrites it
    cur = cur == STAGES - 1 ? 0 : cur + 1;
  }
  cp_wait<0>();
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16 << 20;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  ColdTimer timer;
  FilterBench b(n, timer);
  float *in = b.in, *out = b.out;
  const float copy = b.copy_us;
  std::printf("%s, %d SMs, n = %d, taps = %d; same-size copy %.2f us (%.0f GB/s)\n", prop.name, sms, n, TAPS, copy,
              8.0 * n / (copy * 1e3));
  std::printf("%-36s %6s %9s %11s\n", "kernel", "grid", "us", "% of copy");

  auto check = [&](const char* name) {
    const long long i = b.first_mismatch();
    if (i >= 0) std::printf("%s: WRONG at %lld (%g, filter_direct %g)\n", name, i, b.h_out[i], b.h_ref[i]);
    return i < 0;
  };
  auto direct = [&](const char* name, auto kernel, int block) {
    const int grid = (n + block * 4 - 1) / (block * 4);
    CHECK(cudaMemset(out, 0, 4LL * n));
    kernel<<<grid, block>>>(in, out, n, 0);
    CHECK(cudaDeviceSynchronize());
    if (!check(name)) return;
    const float us = timer.median_us([&] { kernel<<<grid, block>>>(in, out, n, 0); });
    std::printf("%-36s %6d %9.2f %10.1f%%\n", name, grid, us, 100.0 * copy / us);
  };
  // Grid: as many blocks as fit on the GPU at once (a persistent grid), times `waves`.
  auto ring = [&](const char* name, auto kernel, int block, int stages, int waves) {
    const int smem = (block / 32) * stages * kStageFloats * 4;
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
    const int grid = sms * per_sm * waves;
    CHECK(cudaMemset(out, 0, 4LL * n));
    kernel<<<grid, block, smem>>>(in, out, n);
    CHECK(cudaDeviceSynchronize());
    char label[96];
    std::snprintf(label, sizeof label, "%s (%d/SM)", name, per_sm);
    if (!check(label)) return;
    const float us = timer.median_us([&] { kernel<<<grid, block, smem>>>(in, out, n); });
    std::printf("%-36s %6d %9.2f %10.1f%%\n", label, grid, us, 100.0 * copy / us);
  };
  direct("direct 128 x4 mw64", filter_direct_capped<128, 1, 0, 1, 16>, 128);
  direct("direct 256 x4 mw64", filter_direct_capped<256, 1, 0, 1, 8>, 256);
  direct("direct 128 x4", filter_direct<128, 1, 0, 1>, 128);
  for (int waves : {1, 2, 4}) {
    ring("ring 128 s2 mw64", filter_warp_ring<128, 2, 16>, 128, 2, waves);
    ring("ring 128 s3 mw64", filter_warp_ring<128, 3, 16>, 128, 3, waves);
    ring("ring 128 s4 mw64", filter_warp_ring<128, 4, 16>, 128, 4, waves);
    ring("ring 128 s3 mw48", filter_warp_ring<128, 3, 12>, 128, 3, waves);
    ring("ring 128 s4 mw48", filter_warp_ring<128, 4, 12>, 128, 4, waves);
    ring("ring 128 s6 mw48", filter_warp_ring<128, 6, 12>, 128, 6, waves);
    ring("ring 256 s4 mw64", filter_warp_ring<256, 4, 8>, 256, 4, waves);
    ring("ring 128 s4 mw32", filter_warp_ring<128, 4, 8>, 128, 4, waves);
    ring("ring 128 s8 mw32", filter_warp_ring<128, 8, 8>, 128, 8, waves);
  }
  return 0;
}
