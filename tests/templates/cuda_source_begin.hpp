// Include before a template's .cu to compile it as host C++ (the CPU
// emulation tests; cuda_emulation.hpp supplies the built-ins): CUDA's
// qualifiers become plain C++ (a __shared__ array becomes a function-local
// static, which the emulated threads of a block share) and the warnings that
// device-code idioms raise on a host compiler are silenced.
// cuda_source_end.hpp undoes both.
#define __global__
#define __device__
#define __constant__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __syncthreads() cuda_emulation::syncthreads()

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
