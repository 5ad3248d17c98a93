// y = a x over n floats: a kernel whose every configuration is cheap to run
// and a space of more than 10^4 of them, for timing the tuning loop itself on
// several GPUs (scripts/devices_gpu_check.sh). Each thread moves VEC-wide
// vectors (float, float2, float4), ITEMS of them a block apart, in a
// grid-stride loop; LOAD reads plainly (0), through the read-only cache
// (1: __ldg) or streaming (2: __ldcs); STORE writes plainly (0) or streaming
// (1: __stcs).
template <int VEC> struct Vector;
template <> struct Vector<1> { using type = float; };
template <> struct Vector<2> { using type = float2; };
template <> struct Vector<4> { using type = float4; };

template <int LOAD, class T>
__device__ T load(const T* p) {
  if constexpr (LOAD == 1) return __ldg(p);
  else if constexpr (LOAD == 2) return __ldcs(p);
  else return *p;
}

template <int STORE, class T>
__device__ void store(T* p, const T& v) {
  if constexpr (STORE == 1) __stcs(p, v);
  else *p = v;
}

__device__ float scaled(float a, float v) { return a * v; }
__device__ float2 scaled(float a, float2 v) { return make_float2(a * v.x, a * v.y); }
__device__ float4 scaled(float a, float4 v) { return make_float4(a * v.x, a * v.y, a * v.z, a * v.w); }

template <int VEC, int ITEMS, int LOAD, int STORE>
__global__ void wide_scale(int n_vectors, float a, const typename Vector<VEC>::type* __restrict__ x,
                           typename Vector<VEC>::type* __restrict__ y) {
  const int tile = blockDim.x * ITEMS;
  for (int base = blockIdx.x * tile + threadIdx.x; base < n_vectors; base += gridDim.x * tile) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const int i = base + k * blockDim.x;
      if (i < n_vectors) store<STORE>(&y[i], scaled(a, load<LOAD>(&x[i])));
    }
  }
}
