// Included right before a .cu file compiled as host C++ (with
// cuda_emulation.hpp): the CUDA qualifiers that templates/ and the example
// kernels use, emulated; device_code_end.hpp takes them back. No include
// guard: a pair around each .cu.
//
// __shared__ is `static` (a function-local tile reused block after block)
// unless the includer defines it first: aos_soa declares its dynamic shared
// memory `extern __shared__`, which the test provides as a global array.
#define __global__
#define __device__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#ifndef __shared__
#define __shared__ static
#endif
#define __restrict__
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() cuda_emulation::syncthreads()

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
