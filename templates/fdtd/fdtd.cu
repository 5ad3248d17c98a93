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

#include "fdtd_async.cuh"
#include "fdtd_ring.cuh"

// The reference the candidates are verified against (verify.reference_kernel):
// one thread per point in a grid-stride loop, every neighbour read through
// the volume's bounds, the star summed in double.
__global__ void fdtd_reference(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz,
                               int /*chunk*/) {
  const long long plane = static_cast<long long>(nx) * ny, n = plane * nz;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int x = static_cast<int>(i % nx), y = static_cast<int>(i / nx % ny), z = static_cast<int>(i / plane);
    const auto at = [&](int px, int py, int pz) {
      if (px < 0 || px >= nx || py < 0 || py >= ny || pz < 0 || pz >= nz) return 0.0;
      return static_cast<double>(in[pz * plane + static_cast<long long>(py) * nx + px]);
    };
    double acc = static_cast<double>(memtune_fdtd_coeffs[0]) * at(x, y, z);
    for (int r = 1; r <= R; ++r)
      acc += static_cast<double>(memtune_fdtd_coeffs[r]) *
             (at(x - r, y, z) + at(x + r, y, z) + at(x, y - r, z) + at(x, y + r, z) + at(x, y, z - r) + at(x, y, z + r));
    out[i] = static_cast<float>(acc);
  }
}
