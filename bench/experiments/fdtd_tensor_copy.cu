// The fdtd ring's box copied by one tensor copy a plane (COPY 3), or by tensor
// copies at each chunk's start only (COPY 4), both made from
// templates/fdtd/fdtd_ring.cuh by fdtd_tensor_copy.sh (which builds and runs
// this file), against the template's bulk row copies (COPY 1, or COPY 2 with
// its longer box rows where the template takes it: nx % 8 == 4, ny even): the shapes the
// whole grids pick (docs/results.md), memtune's chunk counts, alternating
// rounds in one run, memtune's cold-timing protocol (cold_timing.cuh). The
// outputs are compared bit for bit. Prints one line per shape and round.
// Argument: the map's L2 promotion, 0 none, 1 64 B, 2 128 B (the default: the
// fastest of the four on an H200), 3 256 B.
#define MEMTUNE_RADIUS 4
#include <cuda.h>

#include "templates/fdtd/fdtd.cu"
#include "fdtd_ring_tensor.cuh"

#include "bench/experiments/cold_timing.cuh"

#include <cstring>
#include <string>

namespace {

CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;

// A map of the nx x ny x nz float volume whose box is one stage: pitch x rows x 1.
CUtensorMap box_map(const float* in, int nx, int ny, int nz, int pitch, int rows) {
  CUtensorMap m;
  std::memset(&m, 0, sizeof m);
  const cuuint64_t dims[3] = {cuuint64_t(nx), cuuint64_t(ny), cuuint64_t(nz)};
  const cuuint64_t strides[2] = {cuuint64_t(nx) * 4, cuuint64_t(nx) * ny * 4}; // bytes, dimensions 1 and 2
  const cuuint32_t box[3] = {cuuint32_t(pitch), cuuint32_t(rows), 1}, element_strides[3] = {1, 1, 1};
  const CUresult r = cuTensorMapEncodeTiled(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(in), dims, strides,
                                            box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                            CU_TENSOR_MAP_SWIZZLE_NONE, promotion,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed (%d) for %dx%dx%d, box %dx%d\n", int(r), nx, ny, nz, pitch, rows);
    std::exit(1);
  }
  return m;
}

template <int BX, int BY, int VX, int KY, int PF, int ZU, int MINB>
void compare(ColdTimer& timer, int nx, int ny, int nz, int zfill, int rounds) {
  constexpr int TX = BX * VX, TY = BY * KY, PITCH = TX + 2 * ((R + 3) / 4 * 4), ROWS = TY + 2 * R, S = R + 1 + PF;
  const bool longer = nx % 8 == 4 && ny % 2 == 0; // the template's COPY 2 (fdtd.cpp's ring_copy)
  const int row_stage = longer ? (ROWS * (PITCH + 4) + 7) / 8 * 8 : ROWS * PITCH; // floats, as the kernel rounds
  const int columns = (nx + TX - 1) / TX * ((ny + TY - 1) / TY);
  const int chunks = zfill == 0 ? 1 : std::max(1, std::min(nz, zfill * timer.sms() / columns)); // as fdtd.cpp
  const int chunk = (nz + chunks - 1) / chunks;
  const dim3 grid((nx + TX - 1) / TX, (ny + TY - 1) / TY, (nz + chunk - 1) / chunk), block(BX, BY);
  const long long n = static_cast<long long>(nx) * ny * nz;
  float* in = nullptr;
  CHECK(cudaMalloc(&in, n * 4));
  fill_kernel<<<1024, 256>>>(in, n);
  const CUtensorMap map = box_map(in, nx, ny, nz, PITCH, ROWS);
  // The template's row copies (COPY 1 or 2), the tensor copy (3), tensor copies for a chunk's start only (4).
  using Kernel = void (*)(const float*, float*, int, int, int, int, CUtensorMap);
  const Kernel kernels[3] = {longer ? fdtd_ring_tensor<BX, BY, VX, KY, PF, ZU, MINB, 2>
                                    : fdtd_ring_tensor<BX, BY, VX, KY, PF, ZU, MINB, 1>,
                             fdtd_ring_tensor<BX, BY, VX, KY, PF, ZU, MINB, 3>, fdtd_ring_tensor<BX, BY, VX, KY, PF, ZU, MINB, 4>};
  const int smem[3] = {S * row_stage * 4 + 32, S * ROWS * PITCH * 4 + 128, S * ROWS * PITCH * 4 + 128}; // as the kernels place the ring
  float* out[3] = {};
  std::vector<float> first(n), other(n);
  bool same = true;
  for (int k = 0; k < 3; ++k) {
    CHECK(cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize, smem[k]));
    CHECK(cudaMalloc(&out[k], n * 4));
    CHECK(cudaMemset(out[k], 0xee - k, n * 4));
    kernels[k]<<<grid, block, smem[k]>>>(in, out[k], nx, ny, nz, chunk, map);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy((k == 0 ? first : other).data(), out[k], n * 4, cudaMemcpyDeviceToHost));
    if (k > 0) same = same && std::memcmp(first.data(), other.data(), n * 4) == 0;
  }
  for (int r = 0; r < rounds; ++r) {
    float us[3];
    for (int k = 0; k < 3; ++k)
      us[k] = timer.median_us([&] { kernels[k]<<<grid, block, smem[k]>>>(in, out[k], nx, ny, nz, chunk, map); });
    std::printf("%dx%dx%d  tile %dx%d (%dx%d threads, vx %d)  %d blocks/SM  %2d chunks  round %d:  rows %7.1f us  "
                "tensor %7.1f us (%.3f)  tensor at chunk starts %7.1f us (%.3f)  outputs %s\n",
                nx, ny, nz, TX, TY, BX, BY, VX, MINB, grid.z, r, us[0], us[1], us[1] / us[0], us[2], us[2] / us[0],
                same ? "bitwise equal" : "DIFFER");
    std::fflush(stdout);
  }
  CHECK(cudaFree(in));
  for (auto& o : out) CHECK(cudaFree(o));
  if (!same) std::exit(1);
}

} // namespace

int main(int argc, char** argv) {
  const int p = argc > 1 ? std::atoi(argv[1]) : 2;
  if (argc > 2 || p < 0 || p > 3 || (argc > 1 && std::strcmp(argv[1], std::to_string(p).c_str()) != 0)) {
    std::fprintf(stderr, "usage: fdtd_tensor_copy [L2 promotion: 0 none, 1 64 B, 2 128 B (default), 3 256 B]\n");
    return 2;
  }
  promotion = static_cast<CUtensorMapL2promotion>(p);
  const float coeffs[R + 1] = {-2.5f, 1.3f, -0.4f, 0.11f, -0.03f};
  CHECK(cudaMemcpyToSymbol(memtune_fdtd_coeffs, coeffs, sizeof coeffs));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, tensor map L2 promotion %s\n", prop.name, prop.multiProcessorCount,
              p == 0 ? "none" : p == 1 ? "64 B" : p == 2 ? "128 B" : "256 B");
  ColdTimer timer;
  // The three-block best at 376^3, 480^3 and 300^3 (64x16 tiles, zfill 12) and
  // the two-block 128x8 (zfill 8 at 376^3 and 300^3, one chunk at 512x512x256).
  compare<16, 16, 4, 1, 4, 9, 3>(timer, 376, 376, 376, 12, 3);
  compare<32, 8, 4, 1, 4, 9, 2>(timer, 376, 376, 376, 8, 2);
  compare<32, 8, 4, 1, 4, 9, 2>(timer, 512, 512, 256, 0, 2);
  compare<16, 16, 4, 1, 4, 9, 3>(timer, 480, 480, 480, 12, 2);
  compare<16, 16, 4, 1, 4, 9, 3>(timer, 300, 300, 300, 12, 2);
  compare<32, 8, 4, 1, 4, 9, 2>(timer, 300, 300, 300, 8, 2);
  compare<16, 16, 4, 1, 4, 9, 3>(timer, 64, 64, 64, 12, 2);
  compare<16, 16, 4, 1, 4, 9, 3>(timer, 36, 20, 9, 0, 2); // box wider and taller than the volume
  return 0;
}
