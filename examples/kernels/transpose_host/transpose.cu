// Matrix transpose through a shared-memory tile, in the style of NVIDIA's
// transpose sample: the tile size is a #define, and the file is a whole
// program (a main() that allocates, launches, times and checks).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

// odata = idata^T for a width x height matrix whose sides are multiples of TILE_DIM.
__global__ void transposeCoalesced(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

int main() {
  const int width = 4096, height = 4096;
  const size_t bytes = size_t(width) * height * sizeof(float);
  float* h_idata = static_cast<float*>(std::malloc(bytes));
  float* h_odata = static_cast<float*>(std::malloc(bytes));
  for (int i = 0; i < width * height; ++i) h_idata[i] = float(i);
  float *d_idata, *d_odata;
  check(cudaMalloc(&d_idata, bytes), "cudaMalloc");
  check(cudaMalloc(&d_odata, bytes), "cudaMalloc");
  check(cudaMemcpy(d_idata, h_idata, bytes, cudaMemcpyHostToDevice), "copy in");
  const dim3 grid(width / TILE_DIM, height / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  transposeCoalesced<<<grid, block>>>(d_odata, d_idata, width, height);
  cudaEventRecord(stop);
  check(cudaEventSynchronize(stop), "kernel");
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  check(cudaMemcpy(h_odata, d_odata, bytes, cudaMemcpyDeviceToHost), "copy out");
  int errors = 0;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) errors += h_odata[size_t(x) * height + y] != h_idata[size_t(y) * width + x];
  std::printf("%.3f ms, %.1f GB/s, %s\n", ms, 2.0 * bytes / ms / 1e6, errors ? "FAILED" : "ok");
  cudaFree(d_idata);
  cudaFree(d_odata);
  std::free(h_idata);
  std::free(h_odata);
  return errors ? 1 : 0;
}
