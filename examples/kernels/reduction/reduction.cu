// First pass of a parallel sum, in the style of the CUDA samples' reduction:
// every block sums a grid-stride share of the input and writes one partial
// sum, g_odata[blockIdx.x]; a second pass (or the host) adds the partials.
// Warp sums through cooperative groups, one shared word per warp.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

template <class T, unsigned int blockSize>
__global__ void reduce_partial(const T* __restrict__ g_idata, T* __restrict__ g_odata, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  __shared__ T warp_sums[blockSize / 32];

  T sum = 0;
  const unsigned int stride = blockSize * gridDim.x;
  for (unsigned int i = blockIdx.x * blockSize + threadIdx.x; i < n; i += stride) sum += g_idata[i];

  for (int offset = tile32.size() / 2; offset > 0; offset /= 2) sum += tile32.shfl_down(sum, offset);
  if (tile32.thread_rank() == 0) warp_sums[tile32.meta_group_rank()] = sum;
  cg::sync(cta);

  if (tile32.meta_group_rank() == 0) {
    sum = tile32.thread_rank() < blockSize / 32 ? warp_sums[tile32.thread_rank()] : T(0);
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) sum += tile32.shfl_down(sum, offset);
    if (tile32.thread_rank() == 0) g_odata[blockIdx.x] = sum;
  }
}
