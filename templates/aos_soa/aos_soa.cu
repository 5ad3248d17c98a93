// memtune aos_soa template: an array of n structs of F floats, read or written
// in five data layouts. Compiled by NVRTC at run time.
//
// Background: NVIDIA's Kepler memory-optimisation material contrasts an array
// of structures (AoS: a thread reading field x of its element makes a warp
// load touch F times the sectors it uses) with a structure of arrays (SoA:
// every load fully coalesced), and the read-only path (__ldg) and shared-memory
// staging as ways to keep the AoS layout. This template measures all of them.
//
// Data (all float, device pointers 16-byte aligned, cuMemAlloc's are):
//   the struct array S, in the candidate's layout:
//     AoS layouts (aos, aos_ldg, aos_smem, aos_vec): S[i][f] = s[i * F + f]
//     SoA (soa): S[i][f] = s[f * pitch + i], pitch = round_up(n, 4) floats
//       so every field array starts 16-byte aligned (elements n..pitch-1 of
//       each field are padding: never read, never written)
//   a scalar array of n floats (always one plain array).
//
// Operations (OP), i in [0, n), f in [0, F):
//   0 read:      out[i] = sum_f S_in[i][f]                 in = S (n*F floats), out = scalar (n)
//   1 write:     S_out[i][f] = in[i] * (f + 1)              in = scalar (n),   out = S (n*F)
//   2 readwrite: S_out[i][f] = S_in[i][f] * c_f + 1,  c_f = 0.5 + 0.25 f
//                (an in-place update; S_in and S_out are distinct buffers so
//                 every timed launch sees the same input and can be verified)
// The sum in `read` runs f = 0, 1, ..., F-1 in float.
//
// Template parameters (the search axes):
//   OP      0 read, 1 write, 2 readwrite (the problem, not an axis)
//   LAYOUT  0 aos:      thread owns elements tile + k*BLOCK + tid; one 4-byte
//                       load/store per field (lanes F*4 bytes apart)
//           1 soa:      thread owns W = min(ITEMS, 4) consecutive elements per
//                       round; one W-wide (up to 16-byte) access per field
//           2 aos_ldg:  aos, with struct loads through the read-only path (__ldg)
//           3 aos_smem: the block's AoS tile (BLOCK*ITEMS*F floats, contiguous)
//                       is copied with coalesced 16-byte accesses through
//                       shared memory; threads read/write their own structs
//                       there (8- or 16-byte shared accesses when F allows)
//           4 aos_vec:  thread owns ITEMS consecutive elements = ITEMS*F
//                       consecutive floats, moved as V-wide vectors
//                       (V = 4 if ITEMS*F % 4 == 0, else 2; the host prunes
//                       odd ITEMS*F) and unpacked in registers
//   F       floats per struct (1..8)
//   BLOCK   threads per block (a multiple of 64)
//   ITEMS   elements per thread (1, 2, 4, 8); a block covers BLOCK*ITEMS
//           elements, one tile per block
//
// Every access is guarded for any n: a vector access that would cross n is
// done element by element.

template <int V> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };

template <int V, bool LDG> __device__ __forceinline__ void load_vec(const float* p, float* v) {
  using T = typename Vec<V>::type;
  T x;
  if constexpr (LDG) x = __ldg(reinterpret_cast<const T*>(p));
  else x = *reinterpret_cast<const T*>(p);
  const float* f = reinterpret_cast<const float*>(&x);
#pragma unroll
  for (int e = 0; e < V; ++e) v[e] = f[e];
}

template <int V> __device__ __forceinline__ void store_vec(float* p, const float* v) {
  using T = typename Vec<V>::type;
  T x;
  float* f = reinterpret_cast<float*>(&x);
#pragma unroll
  for (int e = 0; e < V; ++e) f[e] = v[e];
  *reinterpret_cast<T*>(p) = x;
}

// A V-wide store to global memory that stays V wide. Written as a plain
// assignment (store_vec), the compiler merged store_upto's full-width store
// with its element-wise tail into scalar stores for every SoA field but the
// first (PTX of aos_soa_kernel<1, 1, 3, 256, 8>, CUDA 13.0: 1 st.global.v4
// and 8 st.global.f32 per row of 4 elements), so a warp's row of a field took
// up to 2.7 L2 write requests per line instead of 1 (ncu, H100, block 1024
// items 8). Host builds (the emulation tests) keep the plain store.
template <int V> __device__ __forceinline__ void store_global_vec(float* p, const float* v) {
#if defined(__CUDA_ARCH__)
  if constexpr (V == 4) {
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3])
                 : "memory");
    return;
  } else if constexpr (V == 2) {
    asm volatile("st.global.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(v[0]), "f"(v[1]) : "memory");
    return;
  }
#endif
  store_vec<V>(p, v);
}

template <bool LDG> __device__ __forceinline__ float load1(const float* p) {
  if constexpr (LDG) return __ldg(p);
  else return *p;
}

// Loads/stores `count` floats at p (count <= V), V-wide when all are in range.
template <int V, bool LDG> __device__ __forceinline__ void load_upto(const float* p, long long avail, float* v) {
  if (avail >= V) {
    load_vec<V, LDG>(p, v);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = e < avail ? load1<LDG>(p + e) : 0.0f;
  }
}

template <int V> __device__ __forceinline__ void store_upto(float* p, long long avail, const float* v) {
  if (avail >= V) {
    store_global_vec<V>(p, v);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (e < avail) p[e] = v[e];
  }
}

__device__ __forceinline__ constexpr float readwrite_scale(int f) { return 0.5f + 0.25f * f; }

constexpr int kRead = 0, kWrite = 1, kReadWrite = 2;
constexpr int kAos = 0, kSoa = 1, kAosLdg = 2, kAosSmem = 3, kAosVec = 4;

template <int OP, int LAYOUT, int F, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    aos_soa_kernel(const float* in, float* out, long long n, long long pitch) {
  static_assert(OP >= kRead && OP <= kReadWrite, "op 0..2");
  static_assert(LAYOUT >= kAos && LAYOUT <= kAosVec, "layout 0..4");
  static_assert(F >= 1 && F <= 8, "1..8 fields");
  static_assert(BLOCK % 64 == 0, "a tile must start 256-byte aligned for every F");
  static_assert(ITEMS == 1 || ITEMS == 2 || ITEMS == 4 || ITEMS == 8, "items 1, 2, 4, 8");
  constexpr bool READS_STRUCT = OP != kWrite;
  constexpr bool LDG = LAYOUT == kAosLdg;
  constexpr int TILE = BLOCK * ITEMS;
  constexpr int W = ITEMS < 4 ? ITEMS : 4;                              // soa: elements per access
  constexpr int VV = (ITEMS * F) % 4 == 0 ? 4 : (ITEMS * F) % 2 == 0 ? 2 : 1; // aos_vec: floats per access
  static_assert(LAYOUT != kAosVec || VV > 1, "aos_vec needs an even ITEMS*F (pruned on the host)");
  static_assert(!(LAYOUT == kAosLdg && OP == kWrite), "write reads no struct: aos_ldg is pruned on the host");

  const int tid = threadIdx.x;
  const long long tile_base = static_cast<long long>(blockIdx.x) * TILE;

  // Element owned by the thread's item k.
  auto element = [&](int k) -> long long {
    if constexpr (LAYOUT == kSoa) return tile_base + static_cast<long long>((k / W) * BLOCK + tid) * W + k % W;
    else if constexpr (LAYOUT == kAosVec) return tile_base + static_cast<long long>(tid) * ITEMS + k;
    else return tile_base + static_cast<long long>(k) * BLOCK + tid;
  };

  extern __shared__ float4 memtune_smem4[];
  float* smem = reinterpret_cast<float*>(memtune_smem4);
  const long long nf = n * F;                 // floats in an AoS struct array
  const long long tile_f = tile_base * F;     // first float of the block's AoS tile
  constexpr int TILE_V = TILE * F / 4;        // float4s in a full AoS tile
  constexpr int STAGE_ROUNDS = (TILE_V + BLOCK - 1) / BLOCK;

  float s[ITEMS][F]; // the thread's structs (read, readwrite: loaded; write, readwrite: stored)
  float x[ITEMS];    // the scalar per element (write: loaded; read: stored)

  // ---- Load ------------------------------------------------------------
  if constexpr (READS_STRUCT) {
    if constexpr (LAYOUT == kSoa) {
#pragma unroll
      for (int r = 0; r < ITEMS / W; ++r) {
        const long long e0 = element(r * W);
#pragma unroll
        for (int f = 0; f < F; ++f) {
          float v[W];
          load_upto<W, false>(in + f * pitch + e0, n - e0, v);
#pragma unroll
          for (int w = 0; w < W; ++w) s[r * W + w][f] = v[w];
        }
      }
    } else if constexpr (LAYOUT == kAosVec) {
      const long long e0 = element(0);
      float flat[ITEMS * F];
#pragma unroll
      for (int q = 0; q < ITEMS * F / VV; ++q) load_upto<VV, false>(in + e0 * F + q * VV, nf - e0 * F - q * VV, flat + q * VV);
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
#pragma unroll
        for (int f = 0; f < F; ++f) s[k][f] = flat[k * F + f];
    } else if constexpr (LAYOUT == kAosSmem) {
      // Every global load issued before the first shared store.
      float staged[STAGE_ROUNDS][4];
#pragma unroll
      for (int r = 0; r < STAGE_ROUNDS; ++r) {
        const int v = tid + r * BLOCK;
        if (v < TILE_V) load_upto<4, false>(in + tile_f + 4LL * v, nf - tile_f - 4LL * v, staged[r]);
      }
#pragma unroll
      for (int r = 0; r < STAGE_ROUNDS; ++r) {
        const int v = tid + r * BLOCK;
        if (v < TILE_V) store_vec<4>(smem + 4 * v, staged[r]);
      }
      __syncthreads();
      constexpr int SW = F % 4 == 0 ? 4 : F % 2 == 0 ? 2 : 1;
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const int local = k * BLOCK + tid;
#pragma unroll
        for (int f = 0; f < F; f += SW) load_vec<SW, false>(smem + local * F + f, &s[k][f]);
      }
    } else { // aos, aos_ldg
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const long long e = element(k);
#pragma unroll
        for (int f = 0; f < F; ++f) s[k][f] = e < n ? load1<LDG>(in + e * F + f) : 0.0f;
      }
    }
  } else { // write: the scalar input, W- or ITEMS-wide where the elements are consecutive
    if constexpr (LAYOUT == kSoa) {
#pragma unroll
      for (int r = 0; r < ITEMS / W; ++r) {
        const long long e0 = element(r * W);
        load_upto<W, false>(in + e0, n - e0, x + r * W);
      }
    } else if constexpr (LAYOUT == kAosVec) {
      const long long e0 = element(0);
#pragma unroll
      for (int r = 0; r < ITEMS / W; ++r) load_upto<W, false>(in + e0 + r * W, n - e0 - r * W, x + r * W);
    } else {
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const long long e = element(k);
        x[k] = e < n ? in[e] : 0.0f;
      }
    }
  }

  // ---- Compute ---------------------------------------------------------
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if constexpr (OP == kRead) {
      float acc = s[k][0];
#pragma unroll
      for (int f = 1; f < F; ++f) acc += s[k][f];
      x[k] = acc;
    } else if constexpr (OP == kWrite) {
#pragma unroll
      for (int f = 0; f < F; ++f) s[k][f] = x[k] * static_cast<float>(f + 1);
    } else {
#pragma unroll
      for (int f = 0; f < F; ++f) s[k][f] = fmaf(s[k][f], readwrite_scale(f), 1.0f);
    }
  }

  // ---- Store -----------------------------------------------------------
  if constexpr (OP == kRead) {
    if constexpr (LAYOUT == kSoa) {
#pragma unroll
      for (int r = 0; r < ITEMS / W; ++r) {
        const long long e0 = element(r * W);
        store_upto<W>(out + e0, n - e0, x + r * W);
      }
    } else if constexpr (LAYOUT == kAosVec) {
      const long long e0 = element(0);
#pragma unroll
      for (int r = 0; r < ITEMS / W; ++r) store_upto<W>(out + e0 + r * W, n - e0 - r * W, x + r * W);
    } else {
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const long long e = element(k);
        if (e < n) out[e] = x[k];
      }
    }
  } else { // write, readwrite: the struct array
    if constexpr (LAYOUT == kSoa) {
#pragma unroll
      for (int r = 0; r < ITEMS / W; ++r) {
        const long long e0 = element(r * W);
#pragma unroll
        for (int f = 0; f < F; ++f) {
          float v[W];
#pragma unroll
          for (int w = 0; w < W; ++w) v[w] = s[r * W + w][f];
          store_upto<W>(out + f * pitch + e0, n - e0, v);
        }
      }
    } else if constexpr (LAYOUT == kAosVec) {
      const long long e0 = element(0);
      float flat[ITEMS * F];
#pragma unroll
      for (int k = 0; k < ITEMS; ++k)
#pragma unroll
        for (int f = 0; f < F; ++f) flat[k * F + f] = s[k][f];
#pragma unroll
      for (int q = 0; q < ITEMS * F / VV; ++q) store_upto<VV>(out + e0 * F + q * VV, nf - e0 * F - q * VV, flat + q * VV);
    } else if constexpr (LAYOUT == kAosSmem) {
      constexpr int SW = F % 4 == 0 ? 4 : F % 2 == 0 ? 2 : 1;
      // readwrite: each thread overwrites only the structs it read, so no
      // barrier is needed between its shared loads and stores.
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const int local = k * BLOCK + tid;
#pragma unroll
        for (int f = 0; f < F; f += SW) store_vec<SW>(smem + local * F + f, &s[k][f]);
      }
      __syncthreads();
#pragma unroll
      for (int r = 0; r < STAGE_ROUNDS; ++r) {
        const int v = tid + r * BLOCK;
        if (v < TILE_V) {
          float staged[4];
          load_vec<4, false>(smem + 4 * v, staged);
          store_upto<4>(out + tile_f + 4LL * v, nf - tile_f - 4LL * v, staged);
        }
      }
    } else { // aos, aos_ldg
#pragma unroll
      for (int k = 0; k < ITEMS; ++k) {
        const long long e = element(k);
        if (e < n) {
#pragma unroll
          for (int f = 0; f < F; ++f) out[e * F + f] = s[k][f];
        }
      }
    }
  }
}

// The reference the candidates are verified against (verify.reference_kernel,
// once per layout): one thread per struct in a grid-stride loop, field k of
// struct i at in[i*F + k] (AoS) or in[k*pitch + i] (SOA), in double.
template <int OP, int SOA, int F>
__global__ void aos_soa_reference(const float* in, float* out, long long n, long long pitch) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const auto at = [&](int k) { return SOA ? k * pitch + i : i * F + k; };
    if (OP == kRead) {
      double acc = 0.0;
      for (int k = 0; k < F; ++k) acc += static_cast<double>(in[at(k)]);
      out[i] = static_cast<float>(acc);
    } else {
      for (int k = 0; k < F; ++k) {
        const double v = OP == kWrite ? static_cast<double>(in[i]) * (k + 1)
                                      : static_cast<double>(in[at(k)]) * (0.5 + 0.25 * k) + 1.0;
        out[at(k)] = static_cast<float>(v);
      }
    }
  }
}
