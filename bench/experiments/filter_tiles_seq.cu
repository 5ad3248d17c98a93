// filter_direct with a block's tiles done one after another (no second
// register buffer): does a longer contiguous span per block cut the L2
// traffic of the halos and lift the H200 filter (issue 15)?
//
// Nsight Compute on the H200 (bench/experiments/l2_fabric.sh): a copy keeps
// the L2 fabric (lts__ltcfabric2ltc) ~89 % busy, and filter_direct's time
// over the copy's grows with its L2 read sectors: a block's 2 KiB tile reads
// 2 sectors of each neighbour's tile for its halo, through L1 from L2 (+3.1 %
// at 13 taps, +6.2 % at 21; time +3.8 %, +6.5 %). A block that walks TILES
// consecutive tiles reads the inner halos from L1 (the previous tile's lines),
// so its extra L2 sectors are 4 per TILES x 2 KiB. The template's TILES > 1
// prefetches the next tile into a second register buffer (62-64 registers,
// half the warps); here the tiles run one after another with one buffer.
//   nvcc -O3 -std=c++17 -arch=sm_90 -DMEMTUNE_TAPS=21 -I. -o filter_tiles_seq \
//        bench/experiments/filter_tiles_seq.cu && ./filter_tiles_seq [n]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/cold_timing.cuh"
#include "templates/filter/filter.cu"
#include "bench/experiments/filter_bench.cuh"


template <int BLOCK, int TILES>
__device__ __forceinline__ void filter_seq_body(const float* __restrict__ in, float* __restrict__ out, int n) {
  constexpr int NW = 1 + 2 * (kWindowHalo / 4);
  constexpr long long kTile = static_cast<long long>(BLOCK) * 4;
  const int lane = threadIdx.x & 31;
  const long long first = static_cast<long long>(blockIdx.x) * TILES * kTile;
#pragma unroll 1
  for (int t = 0; t < TILES; ++t) {
    DirectLoads<BLOCK, 1, 0, NW> buffer;
    buffer.load(in, first + t * kTile, n, lane);
    buffer.compute_store(out, first + t * kTile, n, lane);
  }
}
template <int BLOCK, int TILES, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    filter_direct_seq(const float* __restrict__ in, float* __restrict__ out, int n, int) {
  filter_seq_body<BLOCK, TILES>(in, out, n);
}
// The same without a register cap.
template <int BLOCK, int TILES>
__global__ void __launch_bounds__(BLOCK) filter_direct_seq_free(const float* __restrict__ in, float* __restrict__ out, int n, int) {
  filter_seq_body<BLOCK, TILES>(in, out, n);
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
  std::printf("%-30s %7s %9s %11s\n", "kernel", "grid", "us", "% of copy");
  auto run = [&](const char* name, auto kernel, int block, int tiles) {
    const int grid = (n + block * 4 * tiles - 1) / (block * 4 * tiles);
    CHECK(cudaMemset(out, 0, 4LL * n));
    kernel<<<grid, block>>>(in, out, n, 0);
    CHECK(cudaDeviceSynchronize());
    if (b.first_mismatch() >= 0) {
      std::printf("%-30s WRONG\n", name);
      return;
    }
    const float us = timer.median_us([&] { kernel<<<grid, block>>>(in, out, n, 0); });
    std::printf("%-30s %7d %9.2f %10.1f%%\n", name, grid, us, 100.0 * copy / us);
  };
  for (int rep = 0; rep < 2; ++rep) {
    run("direct 128 mw64 (template)", filter_direct_capped<128, 1, 0, 1, 16>, 128, 1);
    run("direct 256 mw64 (template)", filter_direct_capped<256, 1, 0, 1, 8>, 256, 1);
    run("seq 128 t2 mw64", filter_direct_seq<128, 2, 16>, 128, 2);
    run("seq 128 t4 mw64", filter_direct_seq<128, 4, 16>, 128, 4);
    run("seq 128 t8 mw64", filter_direct_seq<128, 8, 16>, 128, 8);
    run("seq 128 t16 mw64", filter_direct_seq<128, 16, 16>, 128, 16);
    run("seq 128 t2 mw48", filter_direct_seq<128, 2, 12>, 128, 2);
    run("seq 128 t4 mw48", filter_direct_seq<128, 4, 12>, 128, 4);
    run("seq 128 t8 mw48", filter_direct_seq<128, 8, 12>, 128, 8);
    run("seq 256 t4 mw48", filter_direct_seq<256, 4, 6>, 256, 4);
    run("seq 256 t4 mw64", filter_direct_seq<256, 4, 8>, 256, 4);
    run("seq 128 t4 free", filter_direct_seq_free<128, 4>, 128, 4);
    run("seq 128 t8 free", filter_direct_seq_free<128, 8>, 128, 8);
  }
  return 0;
}
