// Part of templates/matvec/matvec.cu (included there, inlined when embedded).

// ---- matvec_col: column-major stream with a cheaper finish -----------------
//
// matvec_stream's best column-major configuration (4 threads per row, float4
// along the column, 16 splits) reads A at 92% of the copy ceiling on an H100.
// What it leaves: (1) the finish. The last block of a row tile to arrive waits
// for a __threadfence, an atomic round trip to L2, and then reads the S
// partials in a loop the compiler cannot unroll (S is gridDim.y), with every
// load behind the previous add; all row tiles reach it at the end of the
// kernel, when nothing else is left to overlap it with. (2) Split bounds
// rounded up to 4 columns leave the last split short (16 splits of 8192 are
// exact; 24 or 33 are not). (3) One 4-byte x load per A load.
//
// matvec_col changes those:
//   - a thread takes 4 consecutive columns per group (one float4 of x per
//     4 A loads), groups TPR apart, UNROLL groups per batch (4*UNROLL A loads
//     in flight);
//   - split s covers columns [4*floor(s*(N/4)/S), 4*floor((s+1)*(N/4)/S)),
//     the last split to N: the splits differ by at most 4 columns;
//   - the last block adds the partials as matvec_stream does, but with the S
//     loads issued together (unrolled by 8), in split order (deterministic).
//     (A thread-block-cluster finish and a persistent grid were measured
//     too; neither beat this kernel on the H100 or the H200.)
//   - HINT: how A is loaded. 0 plain (the read-only path the compiler picks),
//     1 ld.global.nc.L1::no_allocate.L2::256B (no L1 allocation, L2 fetches
//     256-byte pieces; a plain load before sm_80), 2 ld.global.cs
//     (evict-first streaming).
// Template parameters: BLOCK threads, TPR threads per row (BLOCK / TPR >= 32),
// VEC rows per thread (M % VEC == 0), UNROLL column groups per batch, HINT.
// Rows per block ROWS = BLOCK / TPR * VEC; grid (ceil(M / ROWS), S). Arguments
// as matvec_stream's; chunk unused.

template <int HINT, int V> __device__ __forceinline__ void load_a(const float* p, float* v) {
  if constexpr (HINT == 0 || V != 4) {
    load_vec<V>(p, v);
  } else if constexpr (HINT == 1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
                 : "l"(p));
#else
    load_vec<V>(p, v); // the qualifiers need sm_80; a plain load before it
#endif
  } else {
    const float4 t = __ldcs(reinterpret_cast<const float4*>(p));
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  }
}

__device__ __forceinline__ long long split_begin(long long s, long long splits, long long N) {
  return s >= splits ? N : (N / 4) * s / splits * 4;
}

// Row tile `tile`, column split `split` of S.
template <int BLOCK, int TPR, int VEC, int UNROLL, int HINT>
__device__ __forceinline__ void col_body(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                         long long M, long long N, float* __restrict__ partial,
                                         unsigned* __restrict__ counters, long long tile, long long split, long long S) {
  constexpr int TX = BLOCK / TPR;
  constexpr int ROWS = TX * VEC;
  constexpr int G = 4; // columns per group
  static_assert(TX % 32 == 0, "a warp lies along the rows of one column");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4, "vec 1, 2, 4");
  __shared__ __align__(16) float red[TPR * ROWS];
  __shared__ float sums[ROWS];

  const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
  const long long row_begin = tile * ROWS;
  const long long row0 = row_begin + static_cast<long long>(tx) * VEC;
  const float* a0 = A + (row0 < M ? row0 : 0); // past the last row: read row 0, store nothing
  const long long c0 = split_begin(split, S, N), c1 = split_begin(split + 1, S, N);

  float acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = 0.0f;
  constexpr long long STEP = static_cast<long long>(G) * TPR * UNROLL;
  for (long long j = c0 + static_cast<long long>(G) * ty; j < c1; j += STEP) {
    float a[UNROLL][G][VEC], xv[UNROLL][G];
    if (j + STEP - static_cast<long long>(G) * (TPR - 1) <= c1) { // every column of the batch inside
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const long long jg = j + static_cast<long long>(G) * TPR * u; // a multiple of 4: x as one float4
        const float4 x4 = __ldg(reinterpret_cast<const float4*>(x + jg));
        xv[u][0] = x4.x;
        xv[u][1] = x4.y;
        xv[u][2] = x4.z;
        xv[u][3] = x4.w;
#pragma unroll
        for (int g = 0; g < G; ++g) load_a<HINT, VEC>(a0 + (jg + g) * M, a[u][g]);
      }
    } else { // the split's last columns: clamp to c1 - 1 and weight by 0
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int g = 0; g < G; ++g) {
          const long long jj = j + static_cast<long long>(G) * TPR * u + g, jc = jj < c1 ? jj : c1 - 1;
          load_a<HINT, VEC>(a0 + jc * M, a[u][g]);
          xv[u][g] = jj < c1 ? __ldg(x + jc) : 0.0f;
        }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int g = 0; g < G; ++g) fma_vec<VEC>(acc, a[u][g], xv[u][g]);
  }

  // The TPR sums of a row, in ty order.
  if constexpr (TPR > 1) {
    store_vec<VEC>(red + ty * ROWS + tx * VEC, acc);
    __syncthreads();
    for (int r = tid; r < ROWS; r += BLOCK) sums[r] = sum_over_threads<TPR, ROWS>(red, r);
  } else {
#pragma unroll
    for (int v = 0; v < VEC; ++v) sums[tx * VEC + v] = acc[v];
  }
  __syncthreads();

  float* out = S == 1 ? y : partial + split * M;
  for (int r = tid; r < ROWS; r += BLOCK)
    if (row_begin + r < M) out[row_begin + r] = sums[r];
  if (S == 1) return;
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (tid == 0) last = atomicAdd(&counters[tile], 1u) == S - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int r = tid; r < ROWS; r += BLOCK) {
    const long long row = row_begin + r;
    if (row >= M) break;
    float sum = 0.0f;
    long long s = 0;
    for (; s + 8 <= S; s += 8) { // 8 loads in flight, added in split order
      float v[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) v[i] = __ldcg(partial + (s + i) * M + row);
#pragma unroll
      for (int i = 0; i < 8; ++i) sum += v[i];
    }
    for (; s < S; ++s) sum += __ldcg(partial + s * M + row);
    y[row] = sum;
  }
  if (tid == 0) counters[tile] = 0;
}

template <int BLOCK, int TPR, int VEC, int UNROLL, int HINT>
__global__ void __launch_bounds__(BLOCK)
    matvec_col(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, long long M, long long N,
               long long, float* __restrict__ partial, unsigned* __restrict__ counters) {
  col_body<BLOCK, TPR, VEC, UNROLL, HINT>(A, x, y, M, N, partial, counters, blockIdx.x, blockIdx.y, gridDim.y);
}
