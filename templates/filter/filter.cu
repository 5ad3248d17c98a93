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

// The helper below exists for CUDA compilers only (nvcc, NVRTC): it uses
// CUDA's shared-memory declaration. The CPU emulation test
// (tests/templates/cuda_emulation.hpp) compiles this file as plain C++ and
// supplies its own.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// The block's dynamic shared memory.
template <class T> __device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ float4 memtune_smem[];
  return reinterpret_cast<T*>(memtune_smem);
}

#endif

template <int BLOCK, int PACK, int ITEMS, int VEC, int ALIGN>
__global__ void __launch_bounds__(BLOCK)
    filter_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int seg) {
  constexpr int HALO = ALIGN ? (RADIUS + 3) / 4 * 4 : RADIUS;
  constexpr int TILE = BLOCK * ITEMS;      // outputs per block and segment
  constexpr int EXT = TILE + 2 * HALO;     // staged elements per segment
  static_assert(HALO % VEC == 0 && ITEMS % VEC == 0, "vector width must divide the halo and the items");

  using Elem = typename Packed<PACK>::type;
  Elem* tile = reinterpret_cast<Elem*>(dynamic_shared<float4>()); // float4: 16-byte aligned for every element type

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


// ---- kernels without the shared-memory tile -------------------------------
//
// The article's kernel stages a block's inputs in shared memory and waits at a
// barrier before any thread computes, so a thread has one load in flight and
// then none. On a GPU whose memory needs tens of KiB in flight per SM (an
// H200: 4.8 TB/s x ~0.7 us over 132 SMs is ~25 KiB), that phase structure is
// what leaves the bandwidth unused. filter_direct keeps more bytes in flight:
// several independent float4 loads per thread and no barrier. (The kernels
// branch also has filter_bulk, the copy engine filling a ring of shared-memory
// stages, and filter_stream, persistent blocks; both were slower than
// filter_direct on the H100 and the H200.)
//
// It computes four consecutive outputs per thread and chunk from a window of
// floats w[i] = in[o - RADIUS + i], i < 4 + 2 RADIUS (zero outside [0, n)),
// summed in the same order as filter_kernel (taps in ascending order).

constexpr int kWindowHalo = (RADIUS + 3) / 4 * 4; // the window's halo in whole float4s: RADIUS rounded up to 4

// acc[q] = sum_k c[k] * w[OFF + q + k]; OFF is where in[o - RADIUS] lies in w.
template <int OFF, int N>
__device__ __forceinline__ void fir4_at(const float (&w)[N], float (&acc)[4]) {
  static_assert(OFF >= 0 && OFF + 3 + TAPS <= N, "window too short");
#pragma unroll
  for (int q = 0; q < 4; ++q) acc[q] = 0.0f;
#pragma unroll
  for (int k = 0; k < TAPS; ++k) {
    const float c = memtune_filter_taps[k];
#pragma unroll
    for (int q = 0; q < 4; ++q) acc[q] = fmaf(c, w[OFF + q + k], acc[q]);
  }
}

// in[i .. i+4) through the read-only path, zero outside [0, n). i is a
// multiple of 4 and `in` 16-byte aligned, so the inside case is one float4.
__device__ __forceinline__ float4 ldg4_zero_padded(const float* __restrict__ in, long long i, int n) {
  if (i >= 0 && i + 4 <= n) return __ldg(reinterpret_cast<const float4*>(in + i));
  float4 v;
  v.x = (i + 0 >= 0 && i + 0 < n) ? __ldg(in + i + 0) : 0.0f;
  v.y = (i + 1 >= 0 && i + 1 < n) ? __ldg(in + i + 1) : 0.0f;
  v.z = (i + 2 >= 0 && i + 2 < n) ? __ldg(in + i + 2) : 0.0f;
  v.w = (i + 3 >= 0 && i + 3 < n) ? __ldg(in + i + 3) : 0.0f;
  return v;
}

__device__ __forceinline__ float f4_get(const float4& v, int c) { return c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w; }

// out[o .. o+4) = acc, the part inside [0, n).
__device__ __forceinline__ void store4_clipped(float* __restrict__ out, long long o, int n, const float (&acc)[4]) {
  if (o + 4 <= n) {
    *reinterpret_cast<float4*>(out + o) = make_float4(acc[0], acc[1], acc[2], acc[3]);
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      if (o + q < n) out[o + q] = acc[q];
  }
}

// The shuffled window (filter_direct with SHFL): lane l of a
// warp holds float4 l of the warp's 32 (its own inputs). For the halo, lanes
// 0..NH-1 hold float4s 32..32+NH-1 (right of the warp) and lanes 32-NH..31
// hold float4s -NH..-1 (left): for a shuffle over distance d, the source lane
// (l + d) mod 32 of a requester whose float4 l + d lies outside the warp is
// exactly the lane holding it, so every source lane sends one value (its
// centre or its halo float4) and each window float costs one shuffle.
constexpr int kShflHalo = kWindowHalo / 4; // halo float4s each side of a warp

// The loads of one group of 4 outputs at o (o - 4*lane is the warp's first):
// the centre float4 and, for the halo lanes, their halo float4.
__device__ __forceinline__ void shfl_window_load(const float* __restrict__ in, long long o, int n, int lane,
                                                 float4& centre, float4& halo) {
  const bool right = lane < kShflHalo, left = lane >= 32 - kShflHalo;
  centre = ldg4_zero_padded(in, o, n);
  halo = (right || left) ? ldg4_zero_padded(in, o - 4 * lane + 4 * (right ? 32 + lane : lane - 32), n)
                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// The window of 4 + 2 RADIUS floats from the warp's loads (every lane calls it), then the FIR.
__device__ __forceinline__ void shfl_window_fir(const float4& centre, const float4& halo, int lane, float (&acc)[4]) {
  constexpr int WN = 4 + 2 * RADIUS;
  float w[WN];
#pragma unroll
  for (int i = 0; i < WN; ++i) {
    const int p = i - RADIUS;                         // input position relative to o
    const int d = (p + 4 * kShflHalo) / 4 - kShflHalo; // float4 distance (floor division)
    const int comp = p - 4 * d;
    if (d == 0) {
      w[i] = f4_get(centre, comp);
    } else {
      const bool send_halo = d > 0 ? lane < d : lane >= 32 + d;
      const float mine = send_halo ? f4_get(halo, comp) : f4_get(centre, comp);
      w[i] = __shfl_sync(0xffffffffu, mine, (lane + d) & 31);
    }
  }
  fir4_at<0>(w, acc);
}

// One tile's loads for filter_direct: a thread's CHUNKS groups of 4 outputs
// at `base` (the tile's first output), each group's window of NW float4s (SHFL
// 0) or its centre and halo float4s (SHFL 1, the halo only on the halo lanes).
template <int BLOCK, int CHUNKS, int SHFL, int NW> struct DirectLoads {
  float4 v[CHUNKS][SHFL ? 2 : NW];

  __device__ __forceinline__ void load(const float* __restrict__ in, long long base, int n, int lane) {
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      const long long o = base + (c * BLOCK + threadIdx.x) * 4;
      if constexpr (SHFL) {
        shfl_window_load(in, o, n, lane, v[c][0], v[c][1]);
      } else if (o - kWindowHalo >= 0 && o + 4 + kWindowHalo <= n) {
        const float4* p = reinterpret_cast<const float4*>(in + o - kWindowHalo);
#pragma unroll
        for (int i = 0; i < NW; ++i) v[c][i] = __ldg(p + i);
      } else {
#pragma unroll
        for (int i = 0; i < NW; ++i) v[c][i] = ldg4_zero_padded(in, o - kWindowHalo + 4 * i, n);
      }
    }
  }

  // The FIR over the loaded windows, and the stores.
  __device__ __forceinline__ void compute_store(float* __restrict__ out, long long base, int n, int lane) const {
#pragma unroll
    for (int c = 0; c < CHUNKS; ++c) {
      float acc[4];
      if constexpr (SHFL) {
        shfl_window_fir(v[c][0], v[c][1], lane, acc);
      } else {
        float w[4 * NW];
#pragma unroll
        for (int i = 0; i < NW; ++i) {
          w[4 * i + 0] = v[c][i].x;
          w[4 * i + 1] = v[c][i].y;
          w[4 * i + 2] = v[c][i].z;
          w[4 * i + 3] = v[c][i].w;
        }
        fir4_at<kWindowHalo - RADIUS>(w, acc);
      }
      store4_clipped(out, base + (c * BLOCK + threadIdx.x) * 4, n, acc);
    }
  }
};

// filter_direct<BLOCK, CHUNKS, SHFL, TILES>: no shared memory, no barrier.
//   BLOCK   threads per block (a multiple of 32)
//   CHUNKS  independent groups of 4 outputs per thread, BLOCK*4 outputs apart
//           (every load instruction of a warp reads 512 contiguous bytes);
//           all chunks' loads are issued before the first FMA
//   SHFL    0: the thread reads its whole window, 1 + 2*kWindowHalo/4 float4s,
//           through the read-only path; its neighbours read the same lines,
//           which L1 serves after the first miss
//           1: the thread reads one float4 (its own four inputs); the window
//           comes from the neighbouring lanes by warp shuffles, and the warp's
//           2*kWindowHalo/4 halo float4s are read by the lanes that pass them
//           on (one more load instruction, most lanes idle). Needs taps <= 129.
//   TILES   consecutive tiles (BLOCK*4*CHUNKS outputs each) per block. With
//           TILES > 1 the next tile's loads are issued before this tile's FMAs
//           (two register buffers), so a warp keeps loads in flight while it
//           computes: with one tile a warp's phases are load, wait, compute,
//           store, and while it computes it keeps nothing in flight. The
//           second buffer costs warps: on the H200 at 21 taps 4 tiles beat 1
//           by 1.4 % uncapped and lost to the register cap below (MINB), on
//           the H100 they lost (both measured on 2026-11-26).
// Grid: ceil(n / (BLOCK * 4 * CHUNKS * TILES)) blocks. `seg` is unused: the
// arguments are filter_kernel's, so that one kernel description launches both.
template <int BLOCK, int CHUNKS, int SHFL, int TILES>
__device__ __forceinline__ void filter_direct_body(const float* __restrict__ in, float* __restrict__ out, int n) {
  static_assert(BLOCK % 32 == 0, "whole warps");
  static_assert(TILES >= 1, "at least one tile");
  constexpr int NH = kWindowHalo / 4;    // halo float4s each side
  constexpr int NW = 1 + 2 * NH;         // float4s of a thread's window
  static_assert(!SHFL || 2 * NH <= 32, "the shuffled window needs taps <= 129 (the warp's halo lanes)");
  constexpr long long kTile = static_cast<long long>(BLOCK) * 4 * CHUNKS;
  const int lane = threadIdx.x & 31;
  const long long first = static_cast<long long>(blockIdx.x) * TILES * kTile;

  DirectLoads<BLOCK, CHUNKS, SHFL, NW> buffer[TILES > 1 ? 2 : 1];
  buffer[0].load(in, first, n, lane);
#pragma unroll
  for (int t = 0; t < TILES; ++t) {
    if (t + 1 < TILES) buffer[(t + 1) % 2].load(in, first + (t + 1) * kTile, n, lane);
    buffer[t % 2].compute_store(out, first + t * kTile, n, lane);
  }
}

template <int BLOCK, int CHUNKS, int SHFL, int TILES = 1>
__global__ void __launch_bounds__(BLOCK)
    filter_direct(const float* __restrict__ in, float* __restrict__ out, int n, int /*seg*/) {
  filter_direct_body<BLOCK, CHUNKS, SHFL, TILES>(in, out, n);
}

// filter_direct with __launch_bounds__(BLOCK, MINB): at least MINB blocks per
// SM (the host's min_warps axis / warps per block), which caps the registers
// at 65536 / (BLOCK * MINB). A separate kernel because naming a minimum of 1
// is not the same as naming none: NVRTC 13 then gives the 21-tap window 44
// registers instead of 34. The window takes 34, 2 over what 64 warps per SM
// allow, and a GPU whose bandwidth outruns its FMAs (the H200 at 21 taps:
// FMA pipe 36 % busy, issue 53 %, 80 % of warp cycles waiting on L1TEX)
// hides the loads' latency behind other warps.
template <int BLOCK, int CHUNKS, int SHFL, int TILES, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    filter_direct_capped(const float* __restrict__ in, float* __restrict__ out, int n, int /*seg*/) {
  filter_direct_body<BLOCK, CHUNKS, SHFL, TILES>(in, out, n);
}

// The reference the candidates are verified against (verify.reference_kernel):
// one thread per output in a grid-stride loop, the taps summed in double.
__global__ void filter_reference(const float* __restrict__ in, float* __restrict__ out, int n, int /*seg*/) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    double acc = 0.0;
    for (int k = 0; k < TAPS; ++k) {
      const long long j = i - RADIUS + k;
      if (j >= 0 && j < n) acc += static_cast<double>(memtune_filter_taps[k]) * static_cast<double>(in[j]);
    }
    out[i] = static_cast<float>(acc);
  }
}
