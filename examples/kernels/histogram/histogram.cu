// A 256-bin histogram of bytes (an image's intensities, say) as an
// application would write it: every thread adds its bytes to the bins with
// atomics. `bins` is read and written: the caller zeroes it before a launch
// (and memtune re-fills it with zeros before every launch while tuning).
// What is left to tune:
//   - threads per block, bytes per load (1, 4 or 16: uchar, uint, uint4),
//   - where the atomics go: straight to the global bins, or to a block-private
//     histogram in shared memory merged into the global bins at the end,
//   - how many copies of the private histogram a block keeps (threads spread
//     over them, so that a popular bin is contended by fewer threads),
//   - blocks per SM of the grid-stride grid.
namespace user {

enum class Private { global, shared };

constexpr int kBins = 256;

// Adds the bytes of one load to the histogram `h`.
__device__ __forceinline__ void add_bytes(unsigned int* h, unsigned int word) {
#pragma unroll
  for (int b = 0; b < 4; ++b) atomicAdd(&h[(word >> (8 * b)) & 0xFF], 1u);
}
template <int VEC> __device__ __forceinline__ void add_vector(unsigned int* h, const unsigned char* data, long long v);
template <> __device__ __forceinline__ void add_vector<1>(unsigned int* h, const unsigned char* data, long long v) {
  atomicAdd(&h[data[v]], 1u);
}
template <> __device__ __forceinline__ void add_vector<4>(unsigned int* h, const unsigned char* data, long long v) {
  add_bytes(h, reinterpret_cast<const unsigned int*>(data)[v]);
}
template <> __device__ __forceinline__ void add_vector<16>(unsigned int* h, const unsigned char* data, long long v) {
  const uint4 q = reinterpret_cast<const uint4*>(data)[v];
  add_bytes(h, q.x);
  add_bytes(h, q.y);
  add_bytes(h, q.z);
  add_bytes(h, q.w);
}

} // namespace user

template <int BLOCK, int VEC, user::Private PRIVATE, int REPLICAS>
__global__ void __launch_bounds__(BLOCK) histogram(const unsigned char* __restrict__ data, unsigned int* __restrict__ bins,
                                                   long long n) {
  constexpr bool kShared = PRIVATE == user::Private::shared;
  __shared__ unsigned int local[kShared ? REPLICAS * user::kBins : 1];
  unsigned int* h = bins;
  if (kShared) {
    for (int i = threadIdx.x; i < REPLICAS * user::kBins; i += BLOCK) local[i] = 0;
    __syncthreads();
    h = local + (threadIdx.x % REPLICAS) * user::kBins;
  }

  const long long vectors = n / VEC;
  const long long stride = (long long)gridDim.x * BLOCK;
  for (long long v = (long long)blockIdx.x * BLOCK + threadIdx.x; v < vectors; v += stride)
    user::add_vector<VEC>(h, data, v);
  // The last n % VEC bytes, one per thread of the first block.
  if (blockIdx.x == 0)
    for (long long i = vectors * VEC + threadIdx.x; i < n; i += BLOCK) atomicAdd(&h[data[i]], 1u);

  if (kShared) {
    __syncthreads();
    for (int b = threadIdx.x; b < user::kBins; b += BLOCK) {
      unsigned int sum = 0;
#pragma unroll
      for (int r = 0; r < REPLICAS; ++r) sum += local[r * user::kBins + b];
      if (sum) atomicAdd(&bins[b], sum);
    }
  }
}
