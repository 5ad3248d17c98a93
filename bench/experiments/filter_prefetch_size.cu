// The L2 prefetch-size hint on the filter's window loads (issue 15, H200):
// `ld.global.nc.L2::128B` / `L2::256B` ask the L2 to fetch the whole 128- or
// 256-byte block around a load from DRAM, so a warp's 512-byte window load
// brings its neighbours' halo lines and the next lines in fewer, larger DRAM
// requests. filter_direct's body with its loads replaced; a copy kernel with
// the same hints beside it. Same protocol as the other experiments here
// (cold_timing.cuh), outputs compared bit for bit with filter_direct.
//   nvcc -O3 -std=c++17 -arch=sm_90 -DMEMTUNE_TAPS=21 -I. -o filter_prefetch_size \
//        bench/experiments/filter_prefetch_size.cu && ./filter_prefetch_size
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/experiments/cold_timing.cuh"
#include "templates/filter/filter.cu"
#include "bench/experiments/filter_bench.cuh"

// HINT 0: none (ld.global.nc), 1: L2::128B, 2: L2::256B.
template <int HINT> __device__ __forceinline__ float4 ldg4_hint(const float4* p) {
  float4 v;
  if constexpr (HINT == 0)
    asm("ld.global.nc.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else if constexpr (HINT == 1)
    asm("ld.global.nc.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  else
    asm("ld.global.nc.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}

template <int HINT> __device__ __forceinline__ float2 ldg2_hint(const float2* p) {
  float2 v;
  if constexpr (HINT == 0) asm("ld.global.nc.v2.f32 {%0,%1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
  else if constexpr (HINT == 1) asm("ld.global.nc.L2::128B.v2.f32 {%0,%1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
  else asm("ld.global.nc.L2::256B.v2.f32 {%0,%1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p));
  return v;
}

// The 21-tap window o-10 .. o+13 as the compiler loads it for filter_direct
// (sm_90 SASS: an 8-byte load, five 16-byte loads, an 8-byte load).
template <int BLOCK, int HINT>
__device__ __forceinline__ void filter_hint_body(const float* __restrict__ in, float* __restrict__ out, int n) {
  static_assert(RADIUS == 10 && kWindowHalo == 12, "written for 21 taps");
  const long long o = (static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x) * 4;
  float w[28]; // w[i] = in[o - 12 + i]; w[0], w[1], w[26], w[27] unused
  if (o - kWindowHalo >= 0 && o + 4 + kWindowHalo <= n) {
    const float2 a = ldg2_hint<HINT>(reinterpret_cast<const float2*>(in + o - 10));
    w[0] = w[1] = 0.0f, w[2] = a.x, w[3] = a.y;
    const float4* p = reinterpret_cast<const float4*>(in + o - 8);
#pragma unroll
    for (int i = 0; i < 5; ++i) {
      const float4 v = ldg4_hint<HINT>(p + i);
      w[4 + 4 * i] = v.x, w[5 + 4 * i] = v.y, w[6 + 4 * i] = v.z, w[7 + 4 * i] = v.w;
    }
    const float2 b = ldg2_hint<HINT>(reinterpret_cast<const float2*>(in + o + 12));
    w[24] = b.x, w[25] = b.y, w[26] = w[27] = 0.0f;
  } else {
#pragma unroll
    for (int i = 0; i < 7; ++i) {
      const float4 v = ldg4_zero_padded(in, o - kWindowHalo + 4 * i, n);
      w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
    }
  }
  float acc[4];
  fir4_at<kWindowHalo - RADIUS>(w, acc);
  store4_clipped(out, o, n, acc);
}
template <int BLOCK, int MINB, int HINT>
__global__ void __launch_bounds__(BLOCK, MINB) filter_hint(const float* __restrict__ in, float* __restrict__ out, int n) {
  filter_hint_body<BLOCK, HINT>(in, out, n);
}
// Without a register cap (the template's min_warps 0).
template <int BLOCK, int HINT>
__global__ void __launch_bounds__(BLOCK) filter_hint_free(const float* __restrict__ in, float* __restrict__ out, int n) {
  filter_hint_body<BLOCK, HINT>(in, out, n);
}

template <int HINT> __global__ void copy_hint(const float4* __restrict__ in, float4* __restrict__ out, long long n4) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n4) out[i] = ldg4_hint<HINT>(in + i);
}

int main() {
  const int n = 16 << 20;
  ColdTimer timer;
  FilterBench b(n, timer);
  float *in = b.in, *out = b.out;
  const float copy = b.copy_us;
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, n = %d, taps = %d; same-size copy (cudaMemcpy) %.2f us\n", prop.name, n, TAPS, copy);
  auto report = [&](const char* name, float us, bool check) {
    if (check) {
      if (b.first_mismatch() >= 0) return (void)std::printf("%-30s WRONG\n", name);
    }
    std::printf("%-30s %9.2f us %8.1f %% of the same-size copy\n", name, us, 100.0 * copy / us);
  };
  for (int rep = 0; rep < 2; ++rep) {
    report("copy kernel, no hint", timer.median_us([&] { copy_hint<0><<<n / 4 / 256, 256>>>((const float4*)in, (float4*)out, n / 4); }), false);
    report("copy kernel, L2::128B", timer.median_us([&] { copy_hint<1><<<n / 4 / 256, 256>>>((const float4*)in, (float4*)out, n / 4); }), false);
    report("copy kernel, L2::256B", timer.median_us([&] { copy_hint<2><<<n / 4 / 256, 256>>>((const float4*)in, (float4*)out, n / 4); }), false);
    report("filter 128 mw64 (template)", timer.median_us([&] { filter_direct_capped<128, 1, 0, 1, 16><<<n / 512, 128>>>(in, out, n, 0); }), true);
    report("filter 128 mw64, no hint", timer.median_us([&] { filter_hint<128, 16, 0><<<n / 512, 128>>>(in, out, n); }), true);
    report("filter 128 mw64, L2::128B", timer.median_us([&] { filter_hint<128, 16, 1><<<n / 512, 128>>>(in, out, n); }), true);
    report("filter 128 mw64, L2::256B", timer.median_us([&] { filter_hint<128, 16, 2><<<n / 512, 128>>>(in, out, n); }), true);
    report("filter 256 mw64, L2::256B", timer.median_us([&] { filter_hint<256, 8, 2><<<n / 1024, 256>>>(in, out, n); }), true);
    report("filter 128 (template, no cap)", timer.median_us([&] { filter_direct<128, 1, 0, 1><<<n / 512, 128>>>(in, out, n, 0); }), true);
    report("filter 128 no cap, no hint", timer.median_us([&] { filter_hint_free<128, 0><<<n / 512, 128>>>(in, out, n); }), true);
    report("filter 128 no cap, L2::128B", timer.median_us([&] { filter_hint_free<128, 1><<<n / 512, 128>>>(in, out, n); }), true);
    report("filter 128 no cap, L2::256B", timer.median_us([&] { filter_hint_free<128, 2><<<n / 512, 128>>>(in, out, n); }), true);
  }
  return 0;
}
