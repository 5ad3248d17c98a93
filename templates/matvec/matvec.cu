// memtune matvec template: y = A x, fp32, compiled by NVRTC at run time.
//
// Background: a blog post on shared memory in CUDA tiles y = A x with a
// BLOCK x (BLOCK + 1) tile of A and a slice of x in shared memory (the +1
// column keeps a thread's walk along its own row of the tile off a single
// bank), and guards for "inexact tiling" when the sizes are not multiples of
// the tile. That kernel is `matvec_tiled` here. It moves every byte of A
// through shared memory although no byte is used twice, and it keeps only
// one 4-byte load per thread in flight: `matvec_stream` streams A through
// registers instead, with wide loads and many of them in flight, and splits
// the reduction over columns across threads and blocks so that even a
// matrix with few rows fills the GPU.
//
// Data (device pointers from cuMemAlloc, 256-byte aligned):
//   A: M x N floats, LAYOUT 0 column-major (A(i, j) = A[i + j * M]) or
//      1 row-major (A(i, j) = A[i * N + j])
//   x: N floats, y: M floats
//   partial: S x M floats (S = gridDim.y, the column splits), only when S > 1
//   counters: one unsigned per row tile (gridDim.x), zero before the launch;
//      every launch leaves them zero again
//
// Work split (both kernels): blockIdx.x = row tile of ROWS rows, blockIdx.y =
// column split s, which covers columns [s * chunk, min((s + 1) * chunk, N));
// the host passes chunk = round_up(ceil(N / S), 4), so a split starts on a
// 16-byte boundary of x and of a row-major row. With S = 1 a block writes y.
// With S > 1 it writes its partial sums to partial[s * M + row]; the last
// block of a row tile to arrive (an atomic counter, the threadfence pattern
// of NVIDIA's threadFenceReduction sample) adds the S partials in split
// order s = 0, 1, ..., S-1 (so the result does not depend on arrival order),
// writes y and resets the counter.
//
// Every sum is fp32; its order is fixed by the configuration.
//
// Kernels and template parameters (the search axes):
//   matvec_stream<LAYOUT, BLOCK, TPR, VEC, UNROLL, XSMEM, PREFETCH>
//     BLOCK   threads per block (a multiple of 32)
//     TPR     threads per row: threads of the block that share one row's
//             dot product, each taking every TPR-th column (col-major) or
//             every TPR-th vector of a row (row-major)
//     VEC     floats per A load (1, 2, 4): col-major, VEC consecutive rows
//             of a column (needs M % VEC == 0); row-major, VEC consecutive
//             columns of a row (needs N % VEC == 0); the host prunes the rest
//     UNROLL  A loads a thread issues before it uses the first (in flight)
//     XSMEM   0: x through the read-only cache (__ldg); 1: x staged through
//             shared memory, kXPiece floats at a time
//     PREFETCH 0: load a batch of UNROLL, then use it (ptxas may interleave
//             the loads with the FMAs, keeping fewer in flight but fewer
//             registers: more warps per SM); 1: software-pipelined, the next
//             batch's loads issue before this batch's FMAs (UNROLL to
//             2 x UNROLL in flight per thread, twice the registers)
//     col-major: TX = BLOCK / TPR threads along rows (>= 32, so a warp reads
//       32 * VEC consecutive floats of one column); ROWS = TX * VEC rows per
//       block; thread (tx, ty) = (tid % TX, tid / TX) sums rows
//       tx*VEC .. tx*VEC+VEC-1 over columns ty, ty + TPR, ...; the TPR sums
//       of a row meet in shared memory, added in ty order.
//     row-major: ROWS = BLOCK / TPR rows per block; the TPR threads of a row
//       are consecutive (a sub-warp, a warp or several warps) and read
//       TPR * VEC consecutive floats of the row at a time; their sums meet
//       by a shuffle butterfly, then (TPR > 32) in shared memory in warp
//       order.
//   matvec_tiled<LAYOUT, TILE, PAD>   (the blog's kernel)
//     TILE threads, one per row of a TILE-row tile; per TILE columns: x slice
//     and A tile (TILE x (TILE + PAD) floats) staged with coalesced loads,
//     then each thread walks its row of the tile. PAD 0: the walk (and, in
//     col-major, the staging) hits one bank with all 32 lanes; PAD 1: none.

constexpr int kColMajor = 0, kRowMajor = 1;
constexpr int kXPiece = 2048; // [floats] x staged in shared memory at a time (8 KiB)

template <int V> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };

template <int V> __device__ __forceinline__ void load_vec(const float* p, float* v) {
  using T = typename Vec<V>::type;
  const T t = *reinterpret_cast<const T*>(p);
  const float* f = reinterpret_cast<const float*>(&t);
#pragma unroll
  for (int e = 0; e < V; ++e) v[e] = f[e];
}

template <int V> __device__ __forceinline__ void load_vec_ldg(const float* p, float* v) {
  using T = typename Vec<V>::type;
  const T t = __ldg(reinterpret_cast<const T*>(p));
  const float* f = reinterpret_cast<const float*>(&t);
#pragma unroll
  for (int e = 0; e < V; ++e) v[e] = f[e];
}

template <int V> __device__ __forceinline__ void store_vec(float* p, const float* v) {
  using T = typename Vec<V>::type;
  T t;
  float* f = reinterpret_cast<float*>(&t);
#pragma unroll
  for (int e = 0; e < V; ++e) f[e] = v[e];
  *reinterpret_cast<T*>(p) = t;
}

// Where a block's sum for `row` goes: y when the columns are not split, else
// the block's slice of the partial sums.
__device__ __forceinline__ float* output_base(float* y, float* partial, long long M) {
  return gridDim.y == 1 ? y : partial + static_cast<long long>(blockIdx.y) * M;
}

// After every thread of the block has written its partial sums: the last
// block of the row tile to arrive adds the splits' partials in split order
// and writes y. Called by all threads of the block (it synchronises).
template <int BLOCK, int ROWS>
__device__ __forceinline__ void split_finish(float* y, const float* partial, unsigned* counters, long long M,
                                             long long row_begin) {
  __shared__ bool last;
  const unsigned splits = gridDim.y;
  __threadfence(); // this thread's partial sums are visible GPU-wide before the count says so
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == splits - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int r = threadIdx.x; r < ROWS; r += BLOCK) {
    const long long row = row_begin + r;
    if (row >= M) break;
    float sum = 0.0f;
    for (unsigned s = 0; s < splits; ++s) sum += __ldcg(partial + static_cast<long long>(s) * M + row); // L2, never a stale L1 line
    y[row] = sum;
  }
  if (threadIdx.x == 0) counters[blockIdx.x] = 0; // ready for the next launch
}

template <int VEC> __device__ __forceinline__ void fma_vec(float* acc, const float* a, float x) {
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = fmaf(a[v], x, acc[v]);
}

// Row r's sum of the TPR threads' partial sums in red (TPR x ROWS, thread
// ty's row first), added in ty order.
template <int TPR, int ROWS> __device__ __forceinline__ float sum_over_threads(const float* red, int r) {
  float sum = red[r];
#pragma unroll
  for (int t = 1; t < TPR; ++t) sum += red[t * ROWS + r];
  return sum;
}

// ---- column-major stream ------------------------------------------------
template <int BLOCK, int TPR, int VEC, int UNROLL, int XSMEM, int PREFETCH>
__device__ __forceinline__ void stream_col(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, long long M, long long N, long long chunk,
                                           float* __restrict__ partial, unsigned* __restrict__ counters) {
  constexpr int TX = BLOCK / TPR;
  constexpr int ROWS = TX * VEC;
  static_assert(TX % 32 == 0, "a warp lies along the rows of one column");
  __shared__ float xs[XSMEM ? kXPiece : 1];
  __shared__ __align__(16) float red[TPR > 1 ? TPR * ROWS : 1];

  const int tid = threadIdx.x, tx = tid % TX, ty = tid / TX;
  const long long row_begin = static_cast<long long>(blockIdx.x) * ROWS;
  const long long row0 = row_begin + static_cast<long long>(tx) * VEC;
  // A thread past the last row reads row 0 (valid memory) and stores
  // nothing: no guard inside the loop. M % VEC == 0, so a thread's VEC rows
  // are all in range or all out.
  const float* a0 = A + (row0 < M ? row0 : 0);
  const long long c0 = static_cast<long long>(blockIdx.y) * chunk;
  const long long c1 = min(c0 + chunk, N);

  float acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = 0.0f;

  for (long long p = c0; p < c1; p += (XSMEM ? kXPiece : chunk)) {
    const long long pend = XSMEM ? min(p + kXPiece, c1) : c1;
    if constexpr (XSMEM) {
      __syncthreads();
      for (int i = tid; i < pend - p; i += BLOCK) xs[i] = x[p + i];
      __syncthreads();
    }
    // UNROLL columns per batch: j, j + TPR, ... A column past the piece is
    // read at the piece's last column (valid memory) and weighted by 0, so
    // the last batch needs no separate tail loop.
    auto load_batch = [&](long long jb, float (&a)[UNROLL][VEC], float (&xv)[UNROLL]) {
      if (jb + static_cast<long long>(UNROLL - 1) * TPR < pend) { // whole batch inside: no clamping
        const float* pa = a0 + jb * M;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
          load_vec<VEC>(pa + u * TPR * M, a[u]);
          if constexpr (XSMEM) xv[u] = xs[jb + u * TPR - p];
          else xv[u] = __ldg(x + jb + u * TPR);
        }
        return;
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const long long jj = jb + u * TPR, jc = jj < pend ? jj : pend - 1;
        load_vec<VEC>(a0 + jc * M, a[u]);
        float xj;
        if constexpr (XSMEM) xj = xs[jc - p];
        else xj = __ldg(x + jc);
        xv[u] = jj < pend ? xj : 0.0f;
      }
    };
    long long j = p + ty;
    float a[UNROLL][VEC], xv[UNROLL];
    if constexpr (!PREFETCH) {
      for (; j < pend; j += static_cast<long long>(UNROLL) * TPR) {
        load_batch(j, a, xv);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) fma_vec<VEC>(acc, a[u], xv[u]);
      }
      continue;
    }
    // PREFETCH: software-pipelined, the next batch's loads are issued before
    // this batch's FMAs, so UNROLL loads stay in flight (without it ptxas
    // sinks each load next to its FMA and keeps about two in flight).
    if (j < pend) load_batch(j, a, xv);
    for (; j < pend; j += static_cast<long long>(UNROLL) * TPR) {
      float an[UNROLL][VEC], xn[UNROLL];
      const long long jn = j + static_cast<long long>(UNROLL) * TPR;
      if (jn < pend) load_batch(jn, an, xn);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) fma_vec<VEC>(acc, a[u], xv[u]);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        xv[u] = xn[u];
#pragma unroll
        for (int v = 0; v < VEC; ++v) a[u][v] = an[u][v];
      }
    }
  }

  float* out = output_base(y, partial, M);
  if constexpr (TPR == 1) {
    if (row0 < M) store_vec<VEC>(out + row0, acc);
  } else {
    store_vec<VEC>(red + ty * ROWS + tx * VEC, acc);
    __syncthreads();
    for (int r = tid; r < ROWS; r += BLOCK)
      if (row_begin + r < M) out[row_begin + r] = sum_over_threads<TPR, ROWS>(red, r);
  }
  if (gridDim.y > 1) split_finish<BLOCK, ROWS>(y, partial, counters, M, row_begin);
}

// ---- row-major stream ---------------------------------------------------
template <int BLOCK, int TPR, int VEC, int UNROLL, int XSMEM, int PREFETCH>
__device__ __forceinline__ void stream_row(const float* __restrict__ A, const float* __restrict__ x,
                                           float* __restrict__ y, long long M, long long N, long long chunk,
                                           float* __restrict__ partial, unsigned* __restrict__ counters) {
  static_assert(BLOCK % TPR == 0, "whole rows per block");
  static_assert(TPR <= 32 || TPR % 32 == 0, "a row is a sub-warp or whole warps");
  constexpr int ROWS = BLOCK / TPR;
  constexpr int STEP = TPR * VEC; // columns a row's threads cover per load
  __shared__ __align__(16) float xs[XSMEM ? kXPiece : 4];
  __shared__ float red[TPR > 32 ? BLOCK / 32 : 1];

  const int tid = threadIdx.x, lr = tid % TPR, rl = tid / TPR;
  const long long row_begin = static_cast<long long>(blockIdx.x) * ROWS;
  const long long row = row_begin + rl;
  // Past the last row: read row 0, store nothing (no guard in the loop).
  const float* a_row = A + (row < M ? row : 0) * N;
  const long long c0 = static_cast<long long>(blockIdx.y) * chunk;
  const long long c1 = min(c0 + chunk, N); // a multiple of VEC: N % VEC == 0, chunk % 4 == 0

  float acc[VEC];
#pragma unroll
  for (int v = 0; v < VEC; ++v) acc[v] = 0.0f;

  for (long long p = c0; p < c1; p += (XSMEM ? kXPiece : chunk)) {
    const long long pend = XSMEM ? min(p + kXPiece, c1) : c1; // a multiple of VEC, like p
    if constexpr (XSMEM) {
      __syncthreads();
      for (int i = tid; i < pend - p; i += BLOCK) xs[i] = x[p + i];
      __syncthreads();
    }
    // UNROLL vectors per batch: j, j + STEP, ... A vector past the piece is
    // read at the piece's last vector and weighted by 0 (no tail loop).
    auto load_batch = [&](long long jb, float (&a)[UNROLL][VEC], float (&xv)[UNROLL][VEC]) {
      if (jb + static_cast<long long>(UNROLL - 1) * STEP < pend) { // whole batch inside: no clamping
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
          load_vec<VEC>(a_row + jb + u * STEP, a[u]);
          if constexpr (XSMEM) load_vec<VEC>(xs + (jb + u * STEP - p), xv[u]);
          else load_vec_ldg<VEC>(x + jb + u * STEP, xv[u]);
        }
        return;
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const long long jj = jb + u * STEP, jc = jj < pend ? jj : pend - VEC;
        load_vec<VEC>(a_row + jc, a[u]);
        if constexpr (XSMEM) load_vec<VEC>(xs + (jc - p), xv[u]);
        else load_vec_ldg<VEC>(x + jc, xv[u]);
        if (jj >= pend) {
#pragma unroll
          for (int v = 0; v < VEC; ++v) xv[u][v] = 0.0f;
        }
      }
    };
    long long j = p + static_cast<long long>(lr) * VEC;
    float a[UNROLL][VEC], xv[UNROLL][VEC];
    if constexpr (!PREFETCH) {
      for (; j < pend; j += static_cast<long long>(UNROLL) * STEP) {
        load_batch(j, a, xv);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc[v] = fmaf(a[u][v], xv[u][v], acc[v]);
      }
      continue;
    }
    // PREFETCH: software-pipelined as in stream_col.
    if (j < pend) load_batch(j, a, xv);
    for (; j < pend; j += static_cast<long long>(UNROLL) * STEP) {
      float an[UNROLL][VEC], xn[UNROLL][VEC];
      const long long jn = j + static_cast<long long>(UNROLL) * STEP;
      if (jn < pend) load_batch(jn, an, xn);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[v] = fmaf(a[u][v], xv[u][v], acc[v]);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u)
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          a[u][v] = an[u][v];
          xv[u][v] = xn[u][v];
        }
    }
  }

  float sum = acc[0];
#pragma unroll
  for (int v = 1; v < VEC; ++v) sum += acc[v];
  // Butterfly over the row's lanes (all 32 lanes take part: BLOCK % 32 == 0).
#pragma unroll
  for (int off = (TPR < 32 ? TPR : 32) / 2; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if constexpr (TPR > 32) {
    if ((tid & 31) == 0) red[tid / 32] = sum;
    __syncthreads();
    if (lr == 0) {
      sum = red[tid / 32];
#pragma unroll
      for (int w = 1; w < TPR / 32; ++w) sum += red[tid / 32 + w];
    }
  }
  if (lr == 0 && row < M) output_base(y, partial, M)[row] = sum;
  if (gridDim.y > 1) split_finish<BLOCK, ROWS>(y, partial, counters, M, row_begin);
}

template <int LAYOUT, int BLOCK, int TPR, int VEC, int UNROLL, int XSMEM, int PREFETCH>
__global__ void __launch_bounds__(BLOCK)
    matvec_stream(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, long long M,
                  long long N, long long chunk, float* __restrict__ partial, unsigned* __restrict__ counters) {
  static_assert(LAYOUT == kColMajor || LAYOUT == kRowMajor, "layout 0 (col) or 1 (row)");
  static_assert(BLOCK % 32 == 0, "whole warps");
  static_assert(VEC == 1 || VEC == 2 || VEC == 4, "vec 1, 2, 4");
  static_assert(UNROLL >= 1, "unroll >= 1");
  if constexpr (LAYOUT == kColMajor)
    stream_col<BLOCK, TPR, VEC, UNROLL, XSMEM, PREFETCH>(A, x, y, M, N, chunk, partial, counters);
  else
    stream_row<BLOCK, TPR, VEC, UNROLL, XSMEM, PREFETCH>(A, x, y, M, N, chunk, partial, counters);
}

// ---- the blog's tiled kernel ----------------------------------------------
template <int LAYOUT, int TILE, int PAD>
__global__ void __launch_bounds__(TILE)
    matvec_tiled(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, long long M,
                 long long N, long long chunk, float* __restrict__ partial, unsigned* __restrict__ counters) {
  static_assert(LAYOUT == kColMajor || LAYOUT == kRowMajor, "layout 0 (col) or 1 (row)");
  static_assert(TILE % 32 == 0, "whole warps");
  __shared__ float tile[TILE][TILE + PAD];
  __shared__ float xs[TILE];

  const int t = threadIdx.x;
  const long long row_begin = static_cast<long long>(blockIdx.x) * TILE;
  const long long row = row_begin + t;
  const long long c0 = static_cast<long long>(blockIdx.y) * chunk;
  const long long c1 = min(c0 + chunk, N);
  float sum = 0.0f;
  for (long long c = c0; c < c1; c += TILE) {
    // Inexact tiling: elements past the last row or column are zeros.
    xs[t] = c + t < c1 ? x[c + t] : 0.0f;
    for (int k = 0; k < TILE; ++k) {
      if constexpr (LAYOUT == kColMajor) {
        // consecutive threads read consecutive rows of column c + k
        tile[t][k] = (row < M && c + k < c1) ? A[(c + k) * M + row] : 0.0f;
      } else {
        // consecutive threads read consecutive columns of row row_begin + k
        const long long r = row_begin + k;
        tile[k][t] = (r < M && c + t < c1) ? A[r * N + c + t] : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) sum = fmaf(tile[t][k], xs[k], sum);
    __syncthreads();
  }
  if (row < M) output_base(y, partial, M)[row] = sum;
  if (gridDim.y > 1) split_finish<TILE, TILE>(y, partial, counters, M, row_begin);
}

#include "matvec_col.cuh"

// The reference the candidates are verified against (verify.reference_kernel):
// a row per thread in a grid-stride loop, the products summed in double,
// nothing split. Column-major: a warp reads 32 consecutive rows of each
// column; row-major: 32 rows a row apart, each from its own cache lines
// (slower, and still a millisecond at 8192 x 8192).
template <int LAYOUT>
__global__ void matvec_reference(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                                 long long M, long long N, long long /*chunk*/, float* /*partial*/,
                                 unsigned* /*counters*/) {
  for (long long row = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; row < M;
       row += static_cast<long long>(gridDim.x) * blockDim.x) {
    double acc = 0.0;
    for (long long j = 0; j < N; ++j)
      acc += static_cast<double>(A[LAYOUT == kColMajor ? j * M + row : row * N + j]) * static_cast<double>(x[j]);
    y[row] = static_cast<float>(acc);
  }
}
