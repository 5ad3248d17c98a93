#!/bin/bash
# The fdtd ring with one tensor copy of its box per plane (cp.async.bulk.tensor,
# a CUtensorMap kernel argument, which a kernel description cannot pass), and
# with tensor copies at chunk starts only, against the template's bulk row
# copies, same shapes, same run (docs/results.md, "What holds the H200 below
# its filter and fdtd bars"). The variants are made from templates/fdtd/fdtd_ring.cuh
# as it is by the patch below (it fails, naming the anchor, where the kernel has
# moved on), then fdtd_tensor_copy.cu is compiled with nvcc and run. From the
# repository root, on an sm_90 GPU machine:
#   bash bench/experiments/fdtd_tensor_copy.sh [build folder, default a temporary one] [L2 promotion 0-3]
set -euo pipefail
work=${1:-$(mktemp -d)}
shift || true
mkdir -p "$work"
python3 - templates/fdtd/fdtd_ring.cuh "$work/fdtd_ring_tensor.cuh" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
s = open(src).read()
def patch(old, new):
    global s
    if s.count(old) != 1:
        sys.exit(f"fdtd_tensor_copy.sh: {src} no longer holds this anchor once: {old[:70]!r}")
    s = s.replace(old, new)
# Only the kernel: its helpers come with fdtd.cu, which the program includes too.
head = "template <int BX, int BY, int VX, int KY, int PF, int ZU, int MINB, int COPY>\n__global__"
if s.count(head) != 1:
    sys.exit(f"fdtd_tensor_copy.sh: {src} no longer holds the kernel's head once")
s = s[s.index(head):]
# The kernel takes the map. COPY 3: one tensor copy of the box for every plane;
# COPY 4: tensor copies for the R + PF planes a chunk starts with, COPY 1's row
# copies after them. (COPY 1 and 2 are the template's row copies.)
patch("fdtd_ring(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, int chunk) {",
      "fdtd_ring_tensor(const float* __restrict__ in, float* __restrict__ out, int nx, int ny, int nz, int chunk,\n"
      "                     const __grid_constant__ CUtensorMap tmap) {")
patch('static_assert(COPY >= 0 && COPY <= 2, "copy 0 (cp.async per thread), 1 (bulk rows) or 2 (bulk rows, pitch 4 floats longer)");',
      'static_assert(COPY >= 0 && COPY <= 4, "copy 0, 1 and 2 (rows), 3 (tensor), 4 (tensor, then rows)");')
# A tensor copy writes shared memory at 128-byte aligned addresses (the host
# adds 128 bytes), so COPY 4's row copies cannot take COPY 1's placement of the
# ring (16 bytes off a 32-byte boundary, as the box's first column).
patch("      COPY == 1   ? ((ring_base + 31u) & ~31u) + (in_low & 16u)",
      "      COPY >= 3   ? (ring_base + 127u) & ~127u\n      : COPY == 1 ? ((ring_base + 31u) & ~31u) + (in_low & 16u)")
# COPY 3 and 4 set up their rows and zero the ring as COPY 1 does (the
# tensor copy's zero fill makes that redundant for COPY 3, once per block).
# Thread 0 copies the whole box of a step the chunk reads; the copy engine
# fills what lies outside the volume (rows, columns and planes) with zeros.
patch("""      if constexpr (COPY >= 1) {
        if (bulk) {
          // Thread 0 arrives""", """      if constexpr (COPY >= 3) {
        if (bulk && (COPY == 3 || step < R + PF)) {
          const unsigned bar = bars + 8u * static_cast<unsigned>(stage_idx);
          if (tid == 0) {
            mbarrier_expect_tx(bar, step < need ? 4u * ROWS * PITCH : 0u);
            if (step < need)
              asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                           " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(ring + stage),
                           "l"(reinterpret_cast<unsigned long long>(&tmap)), "r"(X0 - HB), "r"(Y0 - R),
                           "r"(zs + dz * step), "r"(bar)
                           : "memory");
          }
          return;
        }
      }
      if constexpr (COPY != 3) {
        if (bulk) {
          // Thread 0 arrives""")
open(dst, "w").write(s)
PY
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$nvcc" -O3 -std=c++17 -arch=sm_90 -I. -I"$work" -o "$work/fdtd_tensor_copy" bench/experiments/fdtd_tensor_copy.cu -lcuda
"$work/fdtd_tensor_copy" "$@"
