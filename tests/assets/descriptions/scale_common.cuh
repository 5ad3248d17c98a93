#pragma once
namespace memtune_test {
enum Load { plain, ldg };
__device__ inline long long global_index() { return blockIdx.x * (long long)blockDim.x + threadIdx.x; }
__device__ inline long long grid_stride() { return (long long)gridDim.x * blockDim.x; }
template <Load L> __device__ inline float load(const float* p) { return L == ldg ? __ldg(p) : *p; }
} // namespace memtune_test
