// One step of a 3D finite-difference stencil (radius 4, 25 points) in the
// layout of the CUDA samples' FDTD3d: the volume carries a halo of RADIUS
// points on every side, rows are `pitch` floats, and the host passes
// `buffer + padding` with padding = 128 / sizeof(float) - RADIUS = 28 so that
// every row's first inner point starts a 128-byte line. Only the inner
// points are written; the halo of the output is left as it was.
#define RADIUS 4

__constant__ float stencil[RADIUS + 1];

template <int BX, int BY>
__global__ void fdtd_step(float* output, const float* input, int dimx, int dimy, int dimz, int pitch) {
  const int ix = blockIdx.x * BX + threadIdx.x;
  const int iy = blockIdx.y * BY + threadIdx.y;
  if (ix >= dimx || iy >= dimy) return;
  const int stride_y = pitch;
  const int stride_z = pitch * (dimy + 2 * RADIUS);
  int at = RADIUS * stride_z + (iy + RADIUS) * stride_y + ix + RADIUS;
  for (int iz = 0; iz < dimz; ++iz, at += stride_z) {
    float value = stencil[0] * input[at];
#pragma unroll
    for (int r = 1; r <= RADIUS; ++r)
      value += stencil[r] * (input[at - r] + input[at + r] + input[at - r * stride_y] + input[at + r * stride_y] +
                             input[at - r * stride_z] + input[at + r * stride_z]);
    output[at] = value;
  }
}
