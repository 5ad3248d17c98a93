// Part of templates/fdtd/fdtd.cu (included there, inlined when embedded):
// the fdtd_ring kernel. R and memtune_fdtd_coeffs come from fdtd.cu.

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
//     the volume is not copied at all (its stage is zeroed: only the queue
//     reads it);
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
//     stores); other sizes take a copy of the loop of their own (chosen
//     once per launch, uniform over the grid): a warp's 32 lanes copy 32
//     consecutive pieces of a box row, 8-byte pieces and float2 stores
//     where nx is even (every row 8-byte aligned), 4-byte pieces and
//     per-float stores where it is odd, each copy and store predicated in
//     its own instruction (no branch);
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
//           issued by one lane of each warp on one mbarrier per stage, the box's
//           parts outside the volume zeroed once (sm_90); 2 the same with box
//           rows 4 floats longer, for nx % 8 == 4 (see the ring's placement).
//           Every COPY needs nx % 4 == 0; other sizes take the 8-byte
//           (nx even) or 4-byte row copies (above) whatever COPY. (A third way,
//           one tensor copy per plane, needs a CUtensorMap kernel argument
//           that kernel descriptions cannot pass yet;
//           docs/kernel-description.md, `args`.)
// Kernel argument `chunk`: planes per block (blockIdx.z picks the z-chunk).
// Dynamic shared memory: R + 1 + PF stages of (TY + 2R) * PITCH floats
// rounded up to 8, 32 bytes more (the ring's placement), plus S mbarriers of static shared
// memory; more than 48 KiB needs the opt-in (cuFuncSetAttribute
// MAX_DYNAMIC_SHARED_SIZE_BYTES).
// A warp's share of one box row, PIECE floats a lane and CL pieces a copy:
// the lane's pieces at floats 0, PIECE CL, ..., (NSEG - 1) PIECE CL past
// src, those below `left`, to the same offsets past shared address d.
template <int PIECE, int CL, int NSEG, int S = 0>
__device__ __forceinline__ void cp_async_lane_row(unsigned d, const void* src, int left) {
  if constexpr (S < NSEG) {
    cp_async_if_at<4 * PIECE, PIECE * CL * S>(d, src, left);
    cp_async_lane_row<PIECE, CL, NSEG, S + 1>(d, src, left);
  }
}

// A thread's VX results to global o, STEP floats a store (1, or 2 to an
// 8-byte aligned o: a pair where two remain), those below `left`.
template <int STEP, int VX, int E = 0>
__device__ __forceinline__ void store_row_if(float* o, const float (&acc)[VX], int left) {
  if constexpr (E < VX) {
    constexpr int N = STEP == 2 && E + 1 < VX ? 2 : 1; // floats this store writes
    if constexpr (N == 2) store_pair_if<E>(o, acc[E], acc[E + 1], left);
    else store_float_if<E>(o, acc[E], left);
    store_row_if<STEP, VX, E + N>(o, acc, left);
  }
}

template <int BX, int BY, int VX, int KY, int PF, int ZU, int MINB, int COPY>
__global__ void __launch_bounds__(BX * BY, MINB)
    fdtd_ring(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, int chunk) {
#ifdef __CUDA_ARCH__
  static_assert(BX > 0 && __CUDA_ARCH__ >= 800, "fdtd_ring needs sm_80 (cp.async)");
  static_assert(COPY == 0 || __CUDA_ARCH__ >= 900, "fdtd_ring with COPY 1 needs sm_90 (bulk copies, mbarrier tx counts)");
#endif
  static_assert(COPY >= 0 && COPY <= 2, "copy 0 (cp.async per thread), 1 (bulk rows) or 2 (bulk rows, pitch 4 floats longer)");
  constexpr int T = BX * BY;
  constexpr int TX = BX * VX, TY = BY * KY;
  constexpr int HB = (R + 3) / 4 * 4;         // box halo columns: whole 16-byte vectors
  constexpr int HW = (R + VX - 1) / VX * VX;  // the x window's halo, whole VX vectors (<= HB)
  constexpr int BOXW = TX + 2 * HB;           // floats of a box row that are copied (and read)
  constexpr int PITCH = BOXW + (COPY == 2 ? 4 : 0); // floats per box row in the ring (COPY 2: 4 unused)
  constexpr int ROWS = TY + 2 * R;
  constexpr int PLANE = (ROWS * PITCH + 7) / 8 * 8; // floats per stage: whole 32 bytes (the ring's placement)
  constexpr int S = R + 1 + PF;               // stages in the ring
  constexpr int VPR = BOXW / 4;               // 16-byte vectors per box row
  constexpr int NV = ROWS * VPR;              // vectors per box
  constexpr int NR = (NV + T - 1) / T;        // copies per thread and plane
  constexpr int Q = 2 * R + 1;                // the z queue: planes z-R .. z+R
  constexpr int QB = Q + ZU - 1;              // queue slots: unrolled step u uses qb[u .. u + 2R]
  static_assert(TX % 4 == 0, "tile rows of whole 16-byte vectors");
  static_assert(VX == 1 || VX == 2 || VX == 4, "vx 1, 2, 4");
  static_assert(PF >= 1 && ZU >= 1 && ZU <= Q, "pf >= 1, 1 <= zu <= 2R+1");

  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * BX + tx;
  const int X0 = blockIdx.x * TX, Y0 = blockIdx.y * TY;
  // The ring's shared-space address. COPY 1 and 2 place it so that each row
  // copy's shared destination has the offset within 32 bytes (0 or 16) of
  // its global source: the box's first row at its source's, and box rows
  // PITCH * 4 bytes apart as the volume's rows are nx * 4 bytes apart, mod
  // 32 (tiles have a multiple of 8 columns: COPY 1's rows are a multiple of
  // 32 bytes long, for nx % 8 == 0; COPY 2's are 16 bytes more, for
  // nx % 8 == 4, whose rows alternate between the two offsets). With the
  // two offsets 16 bytes apart the copy engine moved the same ring 4-25 %
  // slower (H200, docs/results.md). COPY 0's 16-byte copies are placed as
  // COPY 1's where nx % 8 == 0: 4-8 % faster at 376^3 and 512x512x256, where
  // at nx % 8 == 4 (half the rows misplaced either way) that placement
  // measured 1 % slower than the unplaced ring (H200, docs/results.md). The
  // host adds 32 bytes of dynamic shared memory for it (ring_smem).
  const unsigned ring_base = shared_address(dynamic_shared<float>());
  const unsigned in_low = static_cast<unsigned>(reinterpret_cast<unsigned long long>(in)) - 4u * HB;
  const unsigned ring =
      COPY == 2   ? ((ring_base + 31u) & ~31u) +
                        ((in_low + 4u * static_cast<unsigned>(nx) * static_cast<unsigned>(Y0 - R)) & 16u)
      : COPY == 1 || (nx & 7) == 0 ? ((ring_base + 31u) & ~31u) + (in_low & 16u)
                                   : ring_base;
  const int x = X0 + tx * VX, y_first = Y0 + ty * KY;
  const long long plane = static_cast<long long>(nx) * ny;

  // This chunk: planes [c0, c1), walked from zs in direction dz; ring step j
  // is plane zs + dz*j, steps 0 .. need-1 are copied (those inside the volume).
  const int c0 = blockIdx.z * chunk, c1 = min(nz, c0 + chunk);
  const int count = c1 - c0;
  const int dz = (blockIdx.z & 1) ? -1 : 1;
  const int zs = dz > 0 ? c0 : c1 - 1;
  const int need = count + R;

  // This thread's 16-byte copies (the aligned loop without the copy engine),
  // the same for every plane: box vector v = tid + k*T
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

  // COPY 1 and 2 (rows 16-byte aligned): one lane of warp w copies box rows w,
  // w + CW, ... by the copy engine, the part of each row inside the volume;
  // the rest of the box (rows outside [0, ny), columns outside [0, nx): the
  // same for every plane) is zeroed once. One mbarrier per stage: thread 0
  // arrives with the plane's bytes, the copies complete them. A bulk copy
  // takes its operands from uniform registers: the warp's index comes
  // through warp_uniform and its rows' offsets are worked out once here, so
  // that a copy costs a few uniform additions. (Operands the compiler cannot
  // prove uniform cost about 23 instructions a copy: 22 % of the kernel's
  // instructions at 512x512x256, 4.4 % of its time on an H200.)
  // The odd-nx loop's row copies (below) take the same rows, their lanes in
  // parallel: only whole warps copy (a block of fewer than 32 threads: its
  // one warp's lanes).
  constexpr int CL = T < 32 ? T : 32;      // lanes of a copying warp
  constexpr int CW = T / CL;               // warps that copy
  constexpr int RPW = (ROWS + CW - 1) / CW; // box rows per copying warp
  __shared__ unsigned long long ring_bars[COPY >= 1 ? S : 1];
  const unsigned bars = shared_address(ring_bars); // stage st's mbarrier: bars + 8 st
  const int bx_lo = max(X0 - HB, 0), bx_hi = min(X0 - HB + BOXW, nx); // the box's columns inside [0, nx)
  const unsigned row_bytes = bx_hi > bx_lo ? 4u * static_cast<unsigned>(bx_hi - bx_lo) : 0u;
  const int rows_in = max(0, min(ny, Y0 - R + ROWS) - max(0, Y0 - R));
  const unsigned plane_bytes = row_bytes > 0 ? row_bytes * static_cast<unsigned>(rows_in) : 0u; // of one copied plane
  // This warp's box rows: byte offsets in a stage and in a plane (planes
  // below 4 GiB), and whether the row lies in the volume.
  unsigned row_dst[RPW], row_src[RPW];
  bool row_in[RPW];
  {
    const int warp = warp_uniform(tid / 32);
#pragma unroll
    for (int j = 0; j < RPW; ++j) {
      const int row = warp + CW * j, gy = Y0 - R + row;
      row_in[j] = warp < CW && row < ROWS && gy >= 0 && gy < ny;
      row_dst[j] = 4u * static_cast<unsigned>(row * PITCH + bx_lo - (X0 - HB));
      row_src[j] = row_in[j] ? 4u * (static_cast<unsigned>(gy) * static_cast<unsigned>(nx) + static_cast<unsigned>(bx_lo)) : 0u;
    }
  }

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

  // Called with a constant PIECE, the floats a copy moves (4: every row
  // 16-byte aligned, 2: 8-byte, 1: any): inlined, each call's branches on
  // PIECE fold away (a generic lambda would say so directly, but NVRTC
  // refuses those in device code). One loop for every width measured 4 %
  // slower at odd nx than the 4-byte loop alone (H200, docs/results.md).
  auto run = [&](const int PIECE) {
    const bool ALIGNED = PIECE == 4;
    // The byte address of the next step to copy (R + PF ahead after the prologue).
    const char* next_src = reinterpret_cast<const char*>(in + static_cast<long long>(zs) * plane);
    const long long step_bytes = 4 * dz * plane;
    const bool bulk = COPY >= 1 && ALIGNED; // a constant once run is inlined
    // PIECE 1 and 2 copy PIECE floats a lane, a warp's lanes consecutive
    // pieces of one box row, so that a warp's copy reads 128 or 256
    // contiguous bytes and writes each bank once. (Each thread's 16-byte
    // vector as four 4-byte or two 8-byte copies put lanes 16 bytes apart:
    // 4- or 2-way bank conflicts, and every copy spread over 512 bytes of
    // global memory.) They take the bulk copies' rows (warp w of CW rows w,
    // w + CW, ...: a row's offsets are the same in every lane), copy only
    // the box's part inside the volume (a whole number of pieces: nx even
    // for PIECE 2), and leave the rest zero from the start: no copy reads
    // outside the volume or needs a zero-fill size.
    const int lane = tid % CL;
    const unsigned ring_lane = ring + 4u * static_cast<unsigned>(PIECE * lane);
    const int lane_left = bx_hi - bx_lo - PIECE * lane; // the lane copies segment s of a row where lane_left > PIECE CL s
    if (bulk || !ALIGNED) {
      // Zero the ring: the parts no copy writes (outside the volume) stay zero.
      for (unsigned b = 16u * static_cast<unsigned>(tid); b < 4u * S * PLANE; b += 16u * T) store_shared_zero<4>(ring + b);
      if constexpr (COPY >= 1) {
        if (bulk) { // then the barriers
          fence_proxy_async_shared(); // the zeros before the copy engine's writes
          if (tid == 0) {
#pragma unroll
            for (int st = 0; st < S; ++st) mbarrier_init(bars + 8u * st, 1);
            mbarrier_init_fence();
          }
        }
      }
      __syncthreads(); // every zero (and barrier) before any copy
    }
    const unsigned own = ring + 4u * ((R + ty * KY) * PITCH + HB + tx * VX); // the thread's first point in stage 0
    // A step whose plane lies outside the volume but inside the chunk's
    // reach (copy_steps .. need-1) is only ever read as the queue's newest
    // plane, each thread its own points: those are zeroed instead of
    // copied, so that the queue takes zeros without a select per value and
    // plane. No copy into the ring follows (steps are issued in order), so
    // the copy engine never writes over these stores.
    auto zero_stage = [&](unsigned stage) {
#pragma unroll
      for (int k = 0; k < KY; ++k) store_shared_zero<VX>(own + stage + 4u * k * PITCH);
    };
    auto issue = [&](int step, unsigned stage, int stage_idx) { // ring step `step` into the stage at byte offset `stage`
      const char* src = next_src;
      next_src += step_bytes;
      if constexpr (COPY >= 1) {
        if (bulk) {
          // Thread 0 arrives with the plane's bytes (0: no copy, the phase
          // completes at once); one lane of warp w copies box rows w, w + CW, ...
          const bool copy = step < copy_steps;
          const unsigned bar = bars + 8u * static_cast<unsigned>(stage_idx);
          if (tid == 0) mbarrier_expect_tx(bar, copy ? plane_bytes : 0u);
          if (copy && row_bytes > 0 && elect_one_lane()) {
#pragma unroll
            for (int j = 0; j < RPW; ++j)
              if (row_in[j]) bulk_load_at(ring + stage + row_dst[j], src + row_src[j], row_bytes, bar);
          } else if (!copy && step < need) {
            zero_stage(stage);
          }
          return;
        }
      }
      if (step >= copy_steps && step < need) zero_stage(stage); // uniform over the block
      if (step < copy_steps) { // uniform over the block
#pragma unroll
        for (int k = 0; k < (ALIGNED ? NR : 0); ++k) {
          if (k == NR - 1 && valid[k] < 0) continue; // only the last round has threads past the box
          // nx % 4 == 0: a vector is wholly inside or wholly outside
          cp_async16_or_zero_at(ring + stage + dst_off[k], src + src_off[k], valid[k] == 0);
        }
        // Rows 8-byte aligned (nx even) or of any alignment: warp w copies box
        // rows w, w + CW, ..., CL pieces a copy; a row outside the volume: no
        // lane has floats left.
#pragma unroll
        for (int j = 0; j < (ALIGNED ? 0 : RPW); ++j) {
          const unsigned d = ring_lane + stage + row_dst[j];
          const char* from = src + row_src[j] + 4 * PIECE * lane;
          const int left = row_in[j] ? lane_left : 0;
          if (PIECE == 2) cp_async_lane_row<2, CL, (BOXW + 2 * CL - 1) / (2 * CL)>(d, from, left);
          else cp_async_lane_row<1, CL, (BOXW + CL - 1) / CL>(d, from, left);
        }
      }
      cp_async_commit(); // empty or not: wait_group counts steps
    };

#pragma unroll
    for (int j = 0; j < R + PF; ++j) issue(j, 4u * PLANE * j, j);
    if constexpr (COPY >= 1) {
      if (bulk) {
#pragma unroll
        for (int j = 0; j < R; ++j) mbarrier_wait(bars + 8u * j, 0); // steps 0 .. R-1 are never waited for as "ahead"
      }
    }

    const bool x_in = x < nx; // ALIGNED: nx % 4 == 0, so the whole vector is in
    float* out_z = out + static_cast<long long>(zs) * plane + static_cast<long long>(y_first) * nx + x; // step i's rows
    const long long out_step = dz * plane;
    constexpr unsigned STAGE = 4u * PLANE, RING = STAGE * S;                   // [bytes]
    unsigned cur = 0;                // stage of step i [byte offset]
    unsigned ahead = R * STAGE;      // of step i + R
    int cur_idx = 0, ahead_idx = R;  // bulk: the same as stage indices (for the mbarriers)
    unsigned ahead_parity = 0;       // bulk: the phase parity of step i + R's use of its stage

    for (int i0 = 0; i0 < count; i0 += ZU) {
#pragma unroll
      for (int u = 0; u < ZU; ++u) {
        if (i0 + u >= count) break; // uniform over the block
        if (bulk) {
          if constexpr (COPY >= 1) mbarrier_wait(bars + 8u * ahead_idx, ahead_parity); // step i + R has landed
          __syncthreads(); // everyone is done with step i - 1's stage
        } else {
          cp_async_wait<PF - 1>(); // this thread's copies of steps <= i + R have landed
          __syncthreads();         // everyone's have; everyone is done with step i - 1's stage
        }
        issue(i0 + u + R + PF, (cur == 0 ? RING : cur) - STAGE, cur_idx == 0 ? S - 1 : cur_idx - 1); // into step i - 1's

        // The queue's newest plane, step i + R (a zeroed stage outside the volume).
#pragma unroll
        for (int k = 0; k < KY; ++k) load_shared<VX>(own + ahead + 4u * k * PITCH, qb[u + Q - 1][k]);

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
          // Any x (PIECE 1: each float), or x and nx even (PIECE 2: pairs wholly
          // inside or outside): where it lies in the volume, without a branch.
          if (PIECE == 1 || (PIECE == 2 && VX > 1)) {
            float* o = out_z + k * nx;
            const int left = y_first + k < ny ? nx - x : 0;
            if (PIECE == 1) store_row_if<1>(o, acc, left);
            else store_row_if<2>(o, acc, left);
          } else if (y_first + k < ny && x_in) { // ALIGNED, or VX 1 (x < nx)
            store_vec<VX>(out_z + k * nx, acc);
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
  // 16-byte copies and whole-vector stores need every row 16-byte aligned,
  // 8-byte ones and float2 stores 8-byte aligned rows (uniform over the grid).
  const unsigned long long bases = reinterpret_cast<unsigned long long>(in) | reinterpret_cast<unsigned long long>(out);
  if ((nx & 3) == 0 && (bases & 15) == 0) run(4);
  else if ((nx & 1) == 0 && (bases & 7) == 0) run(2);
  else run(1);
}
