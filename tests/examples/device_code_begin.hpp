// Included right before a .cu file compiled as host C++ (with
// user_kernel_emulation.hpp): the CUDA qualifiers the example kernels use,
// emulated; device_code_end.hpp takes them back. No include guard: a pair
// around each .cu.
#define __global__
#define __device__
#define __forceinline__
#define __launch_bounds__(...)
#define __shared__ static
#define __restrict__
#define __syncthreads() cuda_emulation::syncthreads()

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
