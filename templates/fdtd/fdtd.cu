// memtune fdtd template: a 3D star stencil of radius R on an nx*ny*nz float
// volume (x fastest), zero outside the volume. Compiled by NVRTC at run time.
//
//   out(x,y,z) = c0 * in(x,y,z)
//              + sum_{r=1..R} c_r * ( in(x-r,y,z) + in(x+r,y,z) + in(x,y-r,z) + in(x,y+r,z)
//                                   + in(x,y,z-r) + in(x,y,z+r) )
//   with in(...) = 0 outside [0,nx) x [0,ny) x [0,nz). Every output is written.
//
// Background: NVIDIA's Kepler memory-optimisation material uses this 3D
// finite-difference kernel (radius 4: 25 points) as its occupancy case: a 2D
// block of threads marches along z, each thread keeping its column's z
// neighbours in a register queue and the block staging the current xy plane
// plus halo in shared memory. The block shape decides how many warps fit on an
// SM (registers and shared memory per block), and so how much memory latency
// is hidden. This template keeps that scheme and adds the axes that let it
// approach the copy ceiling on current GPUs.
//
// Template parameters (the search axes):
//   BX, BY  threads per block in x and y; the block's tile is TX = BX*VX by
//           TY = BY points of every plane
//   VX      consecutive x points per thread, moved as one VX-wide vector in
//           global and shared memory (1, 2, 4)
//   PF      prefetch depth: at plane z a thread issues the loads of plane
//           z+R+PF (its column) and the halo of plane z+PF, so each load has PF
//           planes of work to arrive (0: loaded and used in the same plane,
//           as in the article)
//   MINB    __launch_bounds__ minimum blocks per SM: caps the registers at
//           65536 / (BX*BY*MINB) (the host's min_warps axis / warps per block)
//   PAD     1: shared rows are H floats longer, so the x halo's column stores
//           (consecutive lanes on consecutive rows) fall in different banks.
//           The host always sets 1: 0 gives 2-way conflicts on those stores
//           and nothing else (the model's bank replay shows it), so it is
//           not a search axis.
// Kernel argument `chunk`: planes per block; blockIdx.z picks the z-chunk
// (the host derives chunk from the zsplit axis).
//
// Compile-time constant: MEMTUNE_RADIUS (1..4). Coefficients c_0..c_R live
// in __constant__ memory (memtune_fdtd_coeffs), set by the host per module.
//
// Shared memory: two plane buffers (double buffering: one __syncthreads per
// plane), each (TY + 2R) rows of PITCH floats: R halo rows above and below,
// H = round_up(R, VX) halo columns left and right (vector aligned).

#ifndef MEMTUNE_RADIUS
#error "compile with -DMEMTUNE_RADIUS=<1..4>"
#endif

constexpr int R = MEMTUNE_RADIUS;
static_assert(R >= 1 && R <= 4, "radius 1..4");

__constant__ float memtune_fdtd_coeffs[R + 1];

template <int V> struct Vec;
template <> struct Vec<1> { using type = float; };
template <> struct Vec<2> { using type = float2; };
template <> struct Vec<4> { using type = float4; };

template <int V> __device__ __forceinline__ void load_vec(const float* p, float (&v)[V]) {
  const typename Vec<V>::type x = *reinterpret_cast<const typename Vec<V>::type*>(p);
  const float* f = reinterpret_cast<const float*>(&x);
#pragma unroll
  for (int e = 0; e < V; ++e) v[e] = f[e];
}

template <int V> __device__ __forceinline__ void store_vec(float* p, const float (&v)[V]) {
  typename Vec<V>::type x;
  float* f = reinterpret_cast<float*>(&x);
#pragma unroll
  for (int e = 0; e < V; ++e) f[e] = v[e];
  *reinterpret_cast<typename Vec<V>::type*>(p) = x;
}

// v = in[row + x .. row + x + V), zero for elements outside [0, nx) and for
// the whole vector when !ok (row outside the volume). One V-wide load when
// the vector is inside the row and aligned (rows of any nx are allowed).
template <int V>
__device__ __forceinline__ void load_guarded(const float* __restrict__ in, bool ok, long long row, int x, int nx,
                                             float (&v)[V]) {
  const float* p = in + (ok ? row + x : 0);
  if (ok && x >= 0 && x + V <= nx && (reinterpret_cast<unsigned long long>(p) & (V * 4 - 1)) == 0) {
    load_vec<V>(p, v);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = (ok && x + e >= 0 && x + e < nx) ? p[e] : 0.0f;
  }
}

template <int V>
__device__ __forceinline__ void store_guarded(float* __restrict__ out, long long row, int x, int nx,
                                              const float (&v)[V]) {
  float* p = out + row + x;
  if (x + V <= nx && (reinterpret_cast<unsigned long long>(p) & (V * 4 - 1)) == 0) {
    store_vec<V>(p, v);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (x + e < nx) p[e] = v[e];
  }
}

template <int BX, int BY, int VX, int PF, int MINB, int PAD>
__global__ void __launch_bounds__(BX * BY, MINB)
    fdtd_kernel(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, int chunk) {
  constexpr int T = BX * BY;
  constexpr int TX = BX * VX, TY = BY;
  constexpr int H = (R + VX - 1) / VX * VX;   // halo columns each side, vector aligned
  constexpr int PITCH = TX + 2 * H + PAD * H; // floats per shared row
  constexpr int ROWS = TY + 2 * R;
  constexpr int PLANE = ROWS * PITCH;         // floats per shared plane buffer
  constexpr int HV = H / VX;                  // vectors per x-halo row and side
  constexpr int NYH = 2 * R * BX;             // y-halo vectors (R rows above, R below)
  constexpr int NXH = 2 * TY * HV;            // x-halo vectors (left and right)
  constexpr int NH = NYH + NXH;
  constexpr int HR = (NH + T - 1) / T;        // halo vectors per thread (rounds)
  constexpr int SLOTS = PF > 0 ? PF : 1;      // pending loads in registers
  constexpr int Q = 2 * R + 1;                // the z queue: planes z-R .. z+R
  static_assert(TX % 32 == 0 || TX < 32, "tile rows of whole 128-byte lines");

  __shared__ __align__(16) float smem[2 * PLANE];

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int X0 = blockIdx.x * TX, Y0 = blockIdx.y * TY;
  const int x = X0 + tx * VX, y = Y0 + ty;
  const int z0 = blockIdx.z * chunk;
  const int z1 = min(nz, z0 + chunk);
  const int z_in_end = min(nz, z1 + R); // the chunk reads planes [z0 - R, z1 + R)
  const long long plane = static_cast<long long>(nx) * ny;
  const bool y_ok = y < ny;
  const long long my_row = static_cast<long long>(y) * nx;

  // The halo vectors this thread loads and stores, for every plane: first the
  // y halo (R rows above the tile, R below, TX floats each), then the x halo
  // (H floats left and right of each tile row).
  int h_smem[HR], h_x[HR];
  long long h_row[HR];
  bool h_ok[HR], h_on[HR];
#pragma unroll
  for (int k = 0; k < HR; ++k) {
    const int u = tid + k * T;
    int row, col;
    if (u < NYH) {
      const int hr = u / BX, c = u % BX;
      row = hr < R ? hr : TY + hr; // shared row: 0..R-1 above, TY+R..TY+2R-1 below
      col = H + c * VX;
    } else {
      const int v = u - NYH, side = v / (TY * HV), rem = v % (TY * HV);
      row = R + rem / HV;
      col = side ? H + TX + (rem % HV) * VX : (rem % HV) * VX;
    }
    const int gy = Y0 + row - R;
    h_on[k] = u < NH;
    h_ok[k] = u < NH && gy >= 0 && gy < ny;
    h_smem[k] = row * PITCH + col;
    h_x[k] = X0 - H + col;
    h_row[k] = static_cast<long long>(h_ok[k] ? gy : 0) * nx;
  }

  const float* __restrict__ cin = in;
  auto load_column = [&](int z, float (&v)[VX]) {
    const bool ok = y_ok && z >= 0 && z < z_in_end;
    load_guarded<VX>(cin, ok, (ok ? static_cast<long long>(z) * plane : 0) + my_row, x, nx, v);
  };
  auto load_halo = [&](int z, float (&h)[HR][VX]) {
    const bool zok = z >= 0 && z < z1;
    const long long zoff = zok ? static_cast<long long>(z) * plane : 0;
#pragma unroll
    for (int k = 0; k < HR; ++k) load_guarded<VX>(cin, zok && h_ok[k], zoff + h_row[k], h_x[k], nx, h[k]);
  };

  float q[Q][VX];            // q[k]: plane z - R + k of this thread's column
  float pend[SLOTS][VX];     // column loads in flight (plane z + R + slot distance)
  float halo[SLOTS][HR][VX]; // halo loads in flight
#pragma unroll
  for (int e = 0; e < VX; ++e) q[0][e] = 0.0f;
#pragma unroll
  for (int k = 0; k < Q - 1; ++k) load_column(z0 - R + k, q[k + 1]);
  if constexpr (PF > 0) {
#pragma unroll
    for (int s = 0; s < PF; ++s) {
      load_column(z0 + R + s, pend[s]);
      load_halo(z0 + s, halo[s]);
    }
  }

  for (int z_base = z0; z_base < z1; z_base += SLOTS) {
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
      const int z = z_base + s;
      if (z >= z1) break; // uniform over the block: the chunk is the block's

      // Advance the queue to planes z-R .. z+R.
#pragma unroll
      for (int k = 0; k < Q - 1; ++k)
#pragma unroll
        for (int e = 0; e < VX; ++e) q[k][e] = q[k + 1][e];
      if constexpr (PF == 0) {
        load_column(z + R, q[Q - 1]);
        load_halo(z, halo[0]);
      } else {
#pragma unroll
        for (int e = 0; e < VX; ++e) q[Q - 1][e] = pend[s][e];
      }

      // Stage plane z: the thread's own points (from the queue) and the halo.
      float* tile = smem + ((z - z0) & 1) * PLANE;
      store_vec<VX>(tile + (R + ty) * PITCH + H + tx * VX, q[R]);
#pragma unroll
      for (int k = 0; k < HR; ++k)
        if (h_on[k]) store_vec<VX>(tile + h_smem[k], halo[s][k]);

      // Issue the loads PF planes ahead before waiting on anything.
      if constexpr (PF > 0) {
        load_column(z + R + PF, pend[s]);
        load_halo(z + PF, halo[s]);
      }
      __syncthreads(); // plane z staged; the other buffer is free for plane z+1

      const float* centre = tile + (R + ty) * PITCH + H + tx * VX;
      float win[VX + 2 * H]; // x window: centre[-H .. VX + H)
#pragma unroll
      for (int i = 0; i < (VX + 2 * H) / VX; ++i) {
        float w[VX];
        load_vec<VX>(centre - H + i * VX, w);
#pragma unroll
        for (int e = 0; e < VX; ++e) win[i * VX + e] = w[e];
      }
      float acc[VX];
#pragma unroll
      for (int e = 0; e < VX; ++e) acc[e] = memtune_fdtd_coeffs[0] * q[R][e];
#pragma unroll
      for (int r = 1; r <= R; ++r) {
        float up[VX], down[VX];
        load_vec<VX>(centre - r * PITCH, up);
        load_vec<VX>(centre + r * PITCH, down);
#pragma unroll
        for (int e = 0; e < VX; ++e) {
          const float sum = ((win[H + e - r] + win[H + e + r]) + (up[e] + down[e])) + (q[R - r][e] + q[R + r][e]);
          acc[e] = fmaf(memtune_fdtd_coeffs[r], sum, acc[e]);
        }
      }
      if (y_ok && x < nx) store_guarded<VX>(out, static_cast<long long>(z) * plane + my_row, x, nx, acc);
    }
  }
}


// The helpers below use PTX and so exist for CUDA compilers only (nvcc,
// NVRTC); the CPU emulation test (tests/templates/cuda_emulation.hpp)
// compiles this file as plain C++ and supplies its own.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// The block's dynamic shared memory.
template <class T> __device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ float4 memtune_smem[];
  return reinterpret_cast<T*>(memtune_smem);
}
// fdtd_ring addresses its ring by shared-space byte addresses (32-bit): a
// generic pointer into dynamic shared memory makes the compiler rebuild the
// shared window's base before every access.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
template <int V> __device__ __forceinline__ void load_shared(unsigned a, float (&v)[V]);
template <> __device__ __forceinline__ void load_shared<4>(unsigned a, float (&v)[4]) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]) : "r"(a));
}
template <> __device__ __forceinline__ void load_shared<2>(unsigned a, float (&v)[2]) {
  asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(v[0]), "=f"(v[1]) : "r"(a));
}
template <> __device__ __forceinline__ void load_shared<1>(unsigned a, float (&v)[1]) {
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v[0]) : "r"(a));
}
// 16 zero bytes at shared address a.
__device__ __forceinline__ void store_shared_zero16(unsigned a) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %1, %1, %1};" ::"r"(a), "f"(0.0f) : "memory");
}
// 16 bytes from global src to shared address d, or 16 zero bytes when `zero`
// (src is not read then; the predicate form costs no address arithmetic).
__device__ __forceinline__ void cp_async16_or_zero_at(unsigned d, const void* src, bool zero) {
  asm volatile("{\n .reg .pred z;\n setp.ne.b32 z, %2, 0;\n cp.async.cg.shared.global [%0], [%1], 16, z;\n}" ::"r"(d),
               "l"(src), "r"(static_cast<int>(zero))
               : "memory");
}
// 4 bytes (src_bytes 4) or a zero (src_bytes 0) from global src to shared address d.
__device__ __forceinline__ void cp_async4_at(unsigned d, const void* src, unsigned src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(d), "l"(src), "r"(src_bytes) : "memory");
}
// mbarriers and bulk copies (sm_90), for fdtd_ring with COPY 1.
__device__ __forceinline__ void mbarrier_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}
// Makes the initialised mbarriers visible to the copy engine.
__device__ __forceinline__ void mbarrier_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
// Arrives on the barrier and expects `bytes` of copies to complete its phase.
__device__ __forceinline__ void mbarrier_expect_tx(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
// Waits for the completion of the barrier's phase of this parity.
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  const unsigned b = shared_address(bar);
  unsigned done = 0;
  while (!done) {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(b), "r"(parity)
                 : "memory");
  }
}
// bytes (a multiple of 16) from global src to shared address dst (both
// 16-byte aligned) by the copy engine; completion is counted on the mbarrier.
__device__ __forceinline__ void bulk_load_at(unsigned dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}
// Orders this thread's ordinary shared-memory writes before later bulk copies into the same memory.
__device__ __forceinline__ void fence_proxy_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// Closes this thread's current group of cp_async copies.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most N of this thread's groups are still in flight.
template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
#endif

// ---- fdtd_ring: lean cp.async plane ring, KY rows per thread, alternating z direction --
//
// What the profile of fdtd_kernel (32x16 threads, vx4, pf4) says on both GPUs:
// DRAM at 67 % (H100) / 48 % (H200) of peak, issue slots 60-63 % busy, the top
// stall short_scoreboard (shared memory), and 257 warp instructions per 128
// points, of which only 100 are the stencil's additions (25 per point for
// R = 4: 6R additions and R+1 multiplies). The rest: guarded loads (a branch
// and ~10 integer instructions per load and plane), the z queue shifted by
// register moves (2R per point), 11 shared loads per output vector. The SM's
// instruction stream, not DRAM, sets the pace, the more so at 4.8 TB/s.
// An earlier cp.async ring (slower than this kernel everywhere on the H100 and
// the H200) had the right data flow but spent even more instructions
// (modulo-7 stage arithmetic, per-copy bounds checks).
//
// fdtd_ring keeps the data flow and cuts the instructions per point:
//   - every plane of the block's box (TY + 2R rows of TX + 2HB floats, HB = R
//     rounded up to 4) comes by 16-byte cp.async into a ring of S = R + 1 + PF
//     stages, PF planes ahead; a thread's copies use offsets, sizes and zero
//     fill decided once per block (only the plane changes); a plane outside
//     the volume is not copied at all (its queue entries are set to zero);
//   - a thread computes KY consecutive rows of VX points: its y neighbourhood
//     (KY + 2R rows) costs 2R shared loads for KY rows, its x window 2 HW/VX
//     loads per row, its own value comes from the z queue;
//   - the z queue (2R+1 planes of KY x VX values) is shifted once per ZU
//     planes (the loop body is unrolled ZU times), 2R/ZU moves per value;
//   - the ring is addressed by 32-bit shared-space addresses (a generic
//     pointer into dynamic shared memory makes the compiler rebuild the shared
//     window's base before every access), stage offsets advance by an add and
//     a compare per plane;
//   - when nx is a multiple of 4 (every row 16-byte aligned) the loop runs
//     without any per-element path (one 16-byte copy per vector, whole-vector
//     stores); other sizes take a second copy of the loop with 4-byte copies
//     and per-float stores (chosen once per launch, uniform over the grid);
//   - z-chunk c of the grid marches up (c even) or down (c odd), so two
//     neighbouring chunks read their shared 2R boundary planes at about the
//     same time (at both ends of the run, or both at the start) and the
//     second read hits L2 instead of DRAM.
// The additions are done in fdtd_kernel's order (the two z neighbours of a
// pair swap places in a chunk that marches down, which changes nothing in
// floating point): results are bitwise equal to fdtd_kernel's.
//
// Template parameters:
//   BX, BY  threads per block in x and y; tile TX = BX*VX by TY = BY*KY
//   VX      x points per thread, one vector (1, 2, 4); TX a multiple of 4
//   KY      consecutive y rows per thread (1, 2, 4)
//   PF      planes copied ahead of the one the queue takes next (1..6)
//   ZU      planes per unrolled loop body (1..2R+1)
//   MINB    __launch_bounds__ minimum blocks per SM
//   COPY    how a plane's box reaches the ring: 0 every thread's 16-byte
//           cp.async (sm_80); 1 the copy engine, one bulk copy per box row
//           issued by lane 0 of each warp on one mbarrier per stage, the box's
//           parts outside the volume zeroed once (sm_90). COPY 1 needs
//           nx % 4 == 0 for the copy engine; other sizes take COPY 0's 4-byte
//           path. (A third way, one tensor copy per plane, needs a CUtensorMap
//           kernel argument that kernel descriptions cannot pass yet;
//           docs/kernel-description.md, `args`.)
// Kernel argument `chunk`: planes per block (blockIdx.z picks the z-chunk).
// Dynamic shared memory: fdtd_ring_smem_bytes = (R + 1 + PF) * (TY + 2R) *
// (TX + 2HB) * 4 plus S mbarriers of static shared memory; more than 48 KiB
// needs the opt-in (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES).
template <int BX, int BY, int VX, int KY, int PF, int ZU, int MINB, int COPY>
__global__ void __launch_bounds__(BX * BY, MINB)
    fdtd_ring(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, int chunk) {
#ifdef __CUDA_ARCH__
  static_assert(BX > 0 && __CUDA_ARCH__ >= 800, "fdtd_ring needs sm_80 (cp.async)");
  static_assert(COPY == 0 || __CUDA_ARCH__ >= 900, "fdtd_ring with COPY 1 needs sm_90 (bulk copies, mbarrier tx counts)");
#endif
  static_assert(COPY == 0 || COPY == 1, "copy 0 (cp.async per thread) or 1 (bulk rows)");
  constexpr int T = BX * BY;
  constexpr int TX = BX * VX, TY = BY * KY;
  constexpr int HB = (R + 3) / 4 * 4;         // box halo columns: whole 16-byte vectors
  constexpr int HW = (R + VX - 1) / VX * VX;  // the x window's halo, whole VX vectors (<= HB)
  constexpr int PITCH = TX + 2 * HB;          // floats per box row
  constexpr int ROWS = TY + 2 * R;
  constexpr int PLANE = ROWS * PITCH;         // floats per stage
  constexpr int S = R + 1 + PF;               // stages in the ring
  constexpr int VPR = PITCH / 4;              // 16-byte vectors per box row
  constexpr int NV = ROWS * VPR;              // vectors per box
  constexpr int NR = (NV + T - 1) / T;        // copies per thread and plane
  constexpr int Q = 2 * R + 1;                // the z queue: planes z-R .. z+R
  constexpr int QB = Q + ZU - 1;              // queue slots: unrolled step u uses qb[u .. u + 2R]
  static_assert(TX % 4 == 0, "tile rows of whole 16-byte vectors");
  static_assert(VX == 1 || VX == 2 || VX == 4, "vx 1, 2, 4");
  static_assert(PF >= 1 && ZU >= 1 && ZU <= Q, "pf >= 1, 1 <= zu <= 2R+1");

  const unsigned ring = shared_address(dynamic_shared<float>()); // the ring's shared-space address
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int X0 = blockIdx.x * TX, Y0 = blockIdx.y * TY;
  const int x = X0 + tx * VX, y_first = Y0 + ty * KY;
  const long long plane = static_cast<long long>(nx) * ny;

  // This chunk: planes [c0, c1), walked from zs in direction dz; ring step j
  // is plane zs + dz*j, steps 0 .. need-1 are copied (those inside the volume).
  const int c0 = blockIdx.z * chunk, c1 = min(nz, c0 + chunk);
  const int count = c1 - c0;
  const int dz = (blockIdx.z & 1) ? -1 : 1;
  const int zs = dz > 0 ? c0 : c1 - 1;
  const int need = count + R;

  // This thread's copies, the same for every plane: box vector v = tid + k*T
  // at box row v / VPR, column 4 * (v % VPR); its byte offset in a plane
  // (planes below 4 GiB), its byte offset in a stage, and how many of its 4
  // floats lie in the volume (0: zero fill: a row outside [0, ny), columns
  // left of 0 or past nx; -1: past the box, which only happens in the last round).
  unsigned src_off[NR], dst_off[NR];
  int valid[NR];
#pragma unroll
  for (int k = 0; k < NR; ++k) {
    const int v = tid + k * T;
    const int row = v / VPR, col = (v % VPR) * 4;
    const int gy = Y0 - R + row, gx = X0 - HB + col;
    const bool inside = v < NV && gy >= 0 && gy < ny && gx >= 0;
    valid[k] = v < NV ? (inside && gx < nx ? min(4, nx - gx) : 0) : -1;
    src_off[k] = inside ? 4u * (static_cast<unsigned>(gy) * static_cast<unsigned>(nx) + static_cast<unsigned>(gx)) : 0u;
    dst_off[k] = 4u * static_cast<unsigned>(row * PITCH + col);
  }
  // Ring steps whose plane lies in the volume: 0 .. vol_steps-1 (a step's
  // plane is never below the volume going up, nor above it going down).
  const int vol_steps = dz > 0 ? nz - zs : zs + 1;
  const int copy_steps = min(need, vol_steps);

  // COPY 1 (rows 16-byte aligned): lane 0 of warp w copies box rows w, w + W,
  // ... by the copy engine, the part of each row inside the volume; the rest
  // of the box (rows outside [0, ny), columns outside [0, nx): the same for
  // every plane) is zeroed once. One mbarrier per stage: thread 0 arrives
  // with the plane's bytes, the copies complete them. (One lane per warp:
  // a bulk copy takes its operands from uniform registers, so a warp issues
  // its lanes' copies one after another.)
  constexpr int W = (T + 31) / 32;      // warps
  constexpr int RPW = (ROWS + W - 1) / W; // box rows per warp
  __shared__ unsigned long long ring_bars[COPY >= 1 ? S : 1];
  const int bx_lo = max(X0 - HB, 0), bx_hi = min(X0 - HB + PITCH, nx); // the box's columns inside [0, nx)
  const unsigned row_bytes = bx_hi > bx_lo ? 4u * static_cast<unsigned>(bx_hi - bx_lo) : 0u;
  const int rows_in = max(0, min(ny, Y0 - R + ROWS) - max(0, Y0 - R));
  const unsigned plane_bytes = row_bytes > 0 ? row_bytes * static_cast<unsigned>(rows_in) : 0u; // of one copied plane

  // The queue's first 2R planes (steps -R .. R-1) straight from global memory.
  float qb[QB][KY][VX];
#pragma unroll
  for (int i = 0; i < Q - 1; ++i) {
    const int p = zs + dz * (i - R);
#pragma unroll
    for (int k = 0; k < KY; ++k) {
      const bool ok = y_first + k < ny && p >= 0 && p < nz;
      load_guarded<VX>(in, ok, ok ? static_cast<long long>(p) * plane + static_cast<long long>(y_first + k) * nx : 0, x,
                       nx, qb[i][k]);
    }
  }

  // Called twice with a constant: inlined, each call's branches on ALIGNED
  // fold away (a generic lambda would say so directly, but NVRTC refuses
  // those in device code).
  auto run = [&](const bool ALIGNED) {
    // The byte address of the next step to copy (R + PF ahead after the prologue).
    const char* next_src = reinterpret_cast<const char*>(in + static_cast<long long>(zs) * plane);
    const long long step_bytes = 4 * dz * plane;
    const bool bulk = COPY >= 1 && ALIGNED; // a constant once run is inlined
    if constexpr (COPY >= 1) {
      if (bulk) {
        // COPY 1: zero the ring (the parts no copy writes stay zero); both: the barriers.
        if constexpr (COPY == 1) {
          for (unsigned b = 16u * static_cast<unsigned>(tid); b < 4u * S * PLANE; b += 16u * T) store_shared_zero16(ring + b);
          fence_proxy_async_shared(); // the zeros before the copy engine's writes
        }
        if (tid == 0) {
#pragma unroll
          for (int st = 0; st < S; ++st) mbarrier_init(&ring_bars[st], 1);
          mbarrier_init_fence();
        }
        __syncthreads();
      }
    }
    auto issue = [&](int step, unsigned stage, int stage_idx) { // ring step `step` into the stage at byte offset `stage`
      const char* src = next_src;
      next_src += step_bytes;
      if constexpr (COPY == 1) {
        if (bulk) {
          // Thread 0 arrives with the plane's bytes (0: no copy, the phase
          // completes at once); lane 0 of warp w copies box rows w, w + W, ...
          const bool copy = step < copy_steps;
          unsigned long long* bar = &ring_bars[stage_idx];
          if (tid == 0) mbarrier_expect_tx(bar, copy ? plane_bytes : 0u);
          if (copy && row_bytes > 0 && (tid & 31) == 0) {
#pragma unroll
            for (int j = 0; j < RPW; ++j) {
              const int row = tid / 32 + W * j, gy = Y0 - R + row;
              if (row < ROWS && gy >= 0 && gy < ny)
                bulk_load_at(ring + stage + 4u * static_cast<unsigned>(row * PITCH + bx_lo - (X0 - HB)),
                             src + 4ll * (static_cast<long long>(gy) * nx + bx_lo), row_bytes, bar);
            }
          }
          return;
        }
      }
      if (step < copy_steps) { // uniform over the block
#pragma unroll
        for (int k = 0; k < NR; ++k) {
          if (k == NR - 1 && valid[k] < 0) continue; // only the last round has threads past the box
          if (ALIGNED) { // nx % 4 == 0: a vector is wholly inside or wholly outside
            cp_async16_or_zero_at(ring + stage + dst_off[k], src + src_off[k], valid[k] == 0);
          } else {
#pragma unroll
            for (int e = 0; e < 4; ++e)
              cp_async4_at(ring + stage + dst_off[k] + 4 * e, src + src_off[k] + 4 * e, e < valid[k] ? 4u : 0u);
          }
        }
      }
      cp_async_commit(); // empty or not: wait_group counts steps
    };

#pragma unroll
    for (int j = 0; j < R + PF; ++j) issue(j, 4u * PLANE * j, j);
    if constexpr (COPY >= 1) {
      if (bulk) {
#pragma unroll
        for (int j = 0; j < R; ++j) mbarrier_wait(&ring_bars[j], 0); // steps 0 .. R-1 are never waited for as "ahead"
      }
    }

    const bool x_in = x < nx; // ALIGNED: nx % 4 == 0, so the whole vector is in
    float* out_z = out + static_cast<long long>(zs) * plane + static_cast<long long>(y_first) * nx + x; // step i's rows
    const long long out_step = dz * plane;
    const unsigned own = ring + 4u * ((R + ty * KY) * PITCH + HB + tx * VX); // the thread's first point in stage 0
    constexpr unsigned STAGE = 4u * PLANE, RING = STAGE * S;                   // [bytes]
    unsigned cur = 0;                // stage of step i [byte offset]
    unsigned ahead = R * STAGE;      // of step i + R
    int cur_idx = 0, ahead_idx = R;  // COPY 1: the same as stage indices (for the mbarriers)
    unsigned ahead_parity = 0;       // COPY 1: the phase parity of step i + R's use of its stage

    for (int i0 = 0; i0 < count; i0 += ZU) {
#pragma unroll
      for (int u = 0; u < ZU; ++u) {
        if (i0 + u >= count) break; // uniform over the block
        if (bulk) {
          if constexpr (COPY >= 1) mbarrier_wait(&ring_bars[ahead_idx], ahead_parity); // step i + R has landed
          __syncthreads(); // everyone is done with step i - 1's stage
        } else {
          cp_async_wait<PF - 1>(); // this thread's copies of steps <= i + R have landed
          __syncthreads();         // everyone's have; everyone is done with step i - 1's stage
        }
        issue(i0 + u + R + PF, (cur == 0 ? RING : cur) - STAGE, cur_idx == 0 ? S - 1 : cur_idx - 1); // into step i - 1's

        // The queue's newest plane, step i + R (zero outside the volume).
        const bool ahead_in = i0 + u + R < vol_steps;
#pragma unroll
        for (int k = 0; k < KY; ++k) {
          load_shared<VX>(own + ahead + 4u * k * PITCH, qb[u + Q - 1][k]);
          if (!ahead_in) {
#pragma unroll
            for (int e = 0; e < VX; ++e) qb[u + Q - 1][k][e] = 0.0f;
          }
        }

        // y neighbourhood: stage rows ty*KY .. ty*KY + KY + 2R - 1; the own rows from the queue.
        const unsigned centre = own + cur;
        float ycol[KY + 2 * R][VX];
#pragma unroll
        for (int j = 0; j < KY + 2 * R; ++j) {
          if (j >= R && j < R + KY) {
#pragma unroll
            for (int e = 0; e < VX; ++e) ycol[j][e] = qb[u + R][j - R][e];
          } else {
            load_shared<VX>(centre + 4u * (j - R) * PITCH, ycol[j]); // unsigned wrap: rows above the centre
          }
        }
#pragma unroll
        for (int k = 0; k < KY; ++k) {
          float win[VX + 2 * HW]; // x window: centre[-HW .. VX + HW)
#pragma unroll
          for (int w = 0; w < HW / VX; ++w) {
            float l[VX], r[VX];
            load_shared<VX>(centre + 4u * (k * PITCH - HW + w * VX), l);
            load_shared<VX>(centre + 4u * (k * PITCH + VX + w * VX), r);
#pragma unroll
            for (int e = 0; e < VX; ++e) {
              win[w * VX + e] = l[e];
              win[HW + VX + w * VX + e] = r[e];
            }
          }
#pragma unroll
          for (int e = 0; e < VX; ++e) win[HW + e] = qb[u + R][k][e];
          float acc[VX];
#pragma unroll
          for (int e = 0; e < VX; ++e) acc[e] = memtune_fdtd_coeffs[0] * qb[u + R][k][e];
#pragma unroll
          for (int r = 1; r <= R; ++r) {
#pragma unroll
            for (int e = 0; e < VX; ++e) {
              const float sum = ((win[HW + e - r] + win[HW + e + r]) + (ycol[R + k - r][e] + ycol[R + k + r][e])) +
                                (qb[u + R - r][k][e] + qb[u + R + r][k][e]);
              acc[e] = fmaf(memtune_fdtd_coeffs[r], sum, acc[e]);
            }
          }
          if (y_first + k < ny && x_in) {
            float* o = out_z + k * nx;
            if (ALIGNED) {
              store_vec<VX>(o, acc);
            } else {
#pragma unroll
              for (int e = 0; e < VX; ++e)
                if (x + e < nx) o[e] = acc[e];
            }
          }
        }
        out_z += out_step;
        cur = cur + STAGE == RING ? 0 : cur + STAGE;
        ahead = ahead + STAGE == RING ? 0 : ahead + STAGE;
        cur_idx = cur_idx == S - 1 ? 0 : cur_idx + 1;
        ahead_parity ^= ahead_idx == S - 1 ? 1u : 0u;
        ahead_idx = ahead_idx == S - 1 ? 0 : ahead_idx + 1;
      }
      // Shift the queue by ZU planes: slots ZU .. ZU + 2R - 1 become 0 .. 2R - 1.
#pragma unroll
      for (int j = 0; j < Q - 1; ++j)
#pragma unroll
        for (int k = 0; k < KY; ++k)
#pragma unroll
          for (int e = 0; e < VX; ++e) qb[j][k][e] = qb[j + ZU][k][e];
    }
  };
  // 16-byte copies and whole-vector stores need every row 16-byte aligned.
  const bool aligned = (nx & 3) == 0 && (reinterpret_cast<unsigned long long>(in) & 15) == 0 &&
                       (reinterpret_cast<unsigned long long>(out) & 15) == 0;
  if (aligned) run(true);
  else run(false);
}
