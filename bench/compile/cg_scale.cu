// A kernel that includes the toolkit's cooperative groups, as sample code
// does: the compile benchmark's case of a file whose candidates each parse
// the CUDA headers (bench/compile/compile_bench.cpp). out = a * in + 1.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <int BLOCK, int ITEMS, int UNROLL, int MIN_BLOCKS>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) cg_scale(float* out, const float* in, int a, long long n) {
  const cg::thread_block block = cg::this_thread_block();
  const long long base = static_cast<long long>(blockIdx.x) * BLOCK * ITEMS;
#pragma unroll UNROLL
  for (int k = 0; k < ITEMS; ++k) {
    const long long i = base + static_cast<long long>(k) * BLOCK + block.thread_rank();
    if (i < n) out[i] = static_cast<float>(a) * in[i] + 1.0f;
  }
}
