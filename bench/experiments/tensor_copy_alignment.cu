// Whether a tensor copy (cp.async.bulk.tensor, sm_90) can start a box at any
// element of its innermost dimension: a one-dimensional map of n floats
// (16-byte aligned base), a box of 72 floats copied from element x into
// shared memory by one thread, compared with the floats it should hold
// (zeros outside [0, n)). A row of a volume whose nx is not a multiple of 4
// starts at such an element. Prints one line; exits 1 where the copy fails
// (the error sticks to the context, so each x takes a process of its own:
// tensor_copy_alignment.sh runs the list).
#include <cuda.h>
#include <cuda_runtime.h>

#include "templates/fdtd/fdtd_async.cuh" // the ring's mbarrier helpers

#include <cstdio>
#include <cstdlib>
#include <cstring>

constexpr int kBox = 72;

__global__ void copy_box(const __grid_constant__ CUtensorMap map, int x, float* out) {
  __shared__ alignas(128) float box[kBox];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned b = shared_address(&bar), d = shared_address(box);
  if (threadIdx.x == 0) {
    mbarrier_init(b, 1);
    mbarrier_init_fence();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbarrier_expect_tx(b, kBox * 4);
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(d),
                 "l"(reinterpret_cast<unsigned long long>(&map)), "r"(x), "r"(b)
                 : "memory");
  }
  mbarrier_wait(b, 0);
  if (threadIdx.x < kBox) out[threadIdx.x] = box[threadIdx.x];
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tensor_copy_alignment X (the box's first element)\n");
    return 2;
  }
  const int x = std::atoi(argv[1]);
  constexpr int n = 1000;
  float host[n], got[kBox];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i + 1);
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * 4) != cudaSuccess || cudaMalloc(&out, kBox * 4) != cudaSuccess) return 1;
  cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
  CUtensorMap map;
  std::memset(&map, 0, sizeof map);
  const cuuint64_t dims[1] = {n}, strides[1] = {n * 4}; // no stride at rank 1
  const cuuint32_t box[1] = {kBox}, element_strides[1] = {1};
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, in, dims, strides, box,
                                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("x %4d (byte offset %5d): cuTensorMapEncodeTiled failed (%d)\n", x, 4 * x, static_cast<int>(r));
    return 1;
  }
  copy_box<<<1, 96>>>(map, x, out);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("x %4d (byte offset %5d): %s\n", x, 4 * x, cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < kBox; ++i) {
    const int g = x + i;
    wrong += got[i] != (g >= 0 && g < n ? host[g] : 0.0f);
  }
  std::printf("x %4d (byte offset %5d): copied, %d of %d floats wrong\n", x, 4 * x, wrong, kBox);
  return wrong == 0 ? 0 : 1;
}
