// memtune filter template: 1D FIR filter, out[i] = sum_k c[k] * in[i - R + k],
// R = TAPS / 2, zero padding outside [0, n). Compiled by NVRTC at run time.
//
// Background: NVIDIA's article on Kepler's shared-memory bank modes stages a
// block's inputs plus halo in shared memory and shows a float2 variant (two
// outputs n/2 apart packed in one 8-byte element) that only ran conflict-free
// in Kepler's 8-byte bank mode. This template starts from those two variants
// and adds the axes that make the kernel fast on current GPUs.
//
// Template parameters (the search axes):
//   BLOCK  threads per block
//   PACK   segments packed per shared-memory element: the signal is cut into
//          PACK segments of `seg` elements and a thread computes the same
//          positions in each (1 = float, 2 = float2 as in the article,
//          4 = float4)
//   ITEMS  consecutive outputs per thread and segment (register blocking)
//   VEC    floats per global load/store instruction (1, 2, 4)
//   ALIGN  1: round the halo up to 4 elements so the staged tile is 16-byte
//          aligned in global and shared memory (vector loads possible);
//          0: halo of exactly R, as in the article
//
// Compile-time constant: MEMTUNE_TAPS (number of taps).

#ifndef MEMTUNE_TAPS
#error "compile with -DMEMTUNE_TAPS=<taps>"
#endif

constexpr int TAPS = MEMTUNE_TAPS;
constexpr int RADIUS = TAPS / 2;

__constant__ float memtune_filter_taps[TAPS];

template <int PACK> struct Packed;
template <> struct Packed<1> { using type = float; };
template <> struct Packed<2> { using type = float2; };
template <> struct Packed<4> { using type = float4; };

template <int PACK> __device__ __forceinline__ float component(const typename Packed<PACK>::type& v, int p);
template <> __device__ __forceinline__ float component<1>(const float& v, int) { return v; }
template <> __device__ __forceinline__ float component<2>(const float2& v, int p) { return p == 0 ? v.x : v.y; }
template <> __device__ __forceinline__ float component<4>(const float4& v, int p) {
  return p == 0 ? v.x : p == 1 ? v.y : p == 2 ? v.z : v.w;
}

template <int VEC> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };

template <int VEC> __device__ __forceinline__ void load_vec(const float* p, float (&v)[VEC]) {
  const typename Vec<VEC>::type x = *reinterpret_cast<const typename Vec<VEC>::type*>(p);
  const float* f = reinterpret_cast<const float*>(&x);
#pragma unroll
  for (int e = 0; e < VEC; ++e) v[e] = f[e];
}

template <int VEC> __device__ __forceinline__ void store_vec(float* p, const float (&v)[VEC]) {
  typename Vec<VEC>::type x;
  float* f = reinterpret_cast<float*>(&x);
#pragma unroll
  for (int e = 0; e < VEC; ++e) f[e] = v[e];
  *reinterpret_cast<typename Vec<VEC>::type*>(p) = x;
}

template <int BLOCK, int PACK, int ITEMS, int VEC, int ALIGN>
__global__ void __launch_bounds__(BLOCK)
    filter_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int seg) {
  constexpr int HALO = ALIGN ? (RADIUS + 3) / 4 * 4 : RADIUS;
  constexpr int TILE = BLOCK * ITEMS;      // outputs per block and segment
  constexpr int EXT = TILE + 2 * HALO;     // staged elements per segment
  static_assert(HALO % VEC == 0 && ITEMS % VEC == 0, "vector width must divide the halo and the items");

  using Elem = typename Packed<PACK>::type;
  extern __shared__ float4 memtune_smem[]; // float4: 16-byte aligned for every element type
  Elem* tile = reinterpret_cast<Elem*>(memtune_smem);

  const int tile_base = blockIdx.x * TILE; // segment-local index of the block's first output
  const int g0 = tile_base - HALO;         // segment-local index of tile[0]

  // Stage: each segment's inputs plus halo, read with VEC-wide coalesced loads.
  // The halo reads across segment boundaries (the neighbouring segment's
  // data), and only the signal's ends are zero-padded. The loop has a
  // compile-time trip count and issues every load before the first shared
  // store, so a thread that also loads part of the halo keeps both loads in
  // flight instead of paying the memory latency twice.
  constexpr int VECTORS = EXT / VEC;                      // per segment
  constexpr int ROUNDS = (VECTORS + BLOCK - 1) / BLOCK;   // per thread
  float staged[PACK][ROUNDS][VEC];
#pragma unroll
  for (int p = 0; p < PACK; ++p) {
    const long long base = static_cast<long long>(p) * seg;
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const int v = threadIdx.x + r * BLOCK;
      const long long gi = base + g0 + static_cast<long long>(v) * VEC;
      if (v < VECTORS && gi >= 0 && gi + VEC <= n) {
        load_vec<VEC>(in + gi, staged[p][r]);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) staged[p][r][e] = (v < VECTORS && gi + e >= 0 && gi + e < n) ? in[gi + e] : 0.0f;
      }
    }
  }
#pragma unroll
  for (int p = 0; p < PACK; ++p) {
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) {
      const int v = threadIdx.x + r * BLOCK;
      if (v >= VECTORS) continue;
      if constexpr (PACK == 1) {
        store_vec<VEC>(reinterpret_cast<float*>(tile) + v * VEC, staged[p][r]);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e) reinterpret_cast<float*>(tile)[(v * VEC + e) * PACK + p] = staged[p][r][e];
      }
    }
  }
  __syncthreads();

  // Compute: a register window of ITEMS + 2R elements per thread. With PACK 1
  // and an aligned tile it is read with 16- or 8-byte shared loads.
  constexpr int W = ITEMS + 2 * RADIUS;
  const int t0 = threadIdx.x * ITEMS; // tile-local index of the thread's first output
  Elem win[W];
  if constexpr (PACK == 1 && ALIGN == 1 && ITEMS % 2 == 0) {
    constexpr int V = ITEMS % 4 == 0 ? 4 : 2;      // floats per shared load
    constexpr int LOADS = (ITEMS + 2 * HALO) / V;  // the aligned window t0 .. t0 + ITEMS + 2 HALO
    float raw[LOADS][V];
#pragma unroll
    for (int i = 0; i < LOADS; ++i) load_vec<V>(tile + t0 + i * V, raw[i]);
#pragma unroll
    for (int i = 0; i < W; ++i) win[i] = raw[(i + HALO - RADIUS) / V][(i + HALO - RADIUS) % V];
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) win[i] = tile[t0 + HALO - RADIUS + i];
  }

  float acc[ITEMS][PACK];
#pragma unroll
  for (int q = 0; q < ITEMS; ++q)
#pragma unroll
    for (int p = 0; p < PACK; ++p) acc[q][p] = 0.0f;
#pragma unroll
  for (int k = 0; k < TAPS; ++k) {
    const float c = memtune_filter_taps[k];
#pragma unroll
    for (int q = 0; q < ITEMS; ++q)
#pragma unroll
      for (int p = 0; p < PACK; ++p) acc[q][p] = fmaf(c, component<PACK>(win[q + k], p), acc[q][p]);
  }

  // Store: VEC-wide stores of each segment's ITEMS consecutive outputs.
#pragma unroll
  for (int p = 0; p < PACK; ++p) {
    const long long base = static_cast<long long>(p) * seg;
#pragma unroll
    for (int q = 0; q < ITEMS; q += VEC) {
      const long long j = static_cast<long long>(tile_base) + t0 + q; // segment-local output index
      const long long gi = base + j;
      float vals[VEC];
#pragma unroll
      for (int e = 0; e < VEC; ++e) vals[e] = acc[q + e][p];
      if (j + VEC <= seg && gi + VEC <= n) {
        store_vec<VEC>(out + gi, vals);
      } else {
#pragma unroll
        for (int e = 0; e < VEC; ++e)
          if (j + e < seg && gi + e < n) out[gi + e] = vals[e];
      }
    }
  }
}
