// Ends what cuda_source_begin.hpp began.
#pragma GCC diagnostic pop

#undef __global__
#undef __device__
#undef __constant__
#undef __forceinline__
#undef __launch_bounds__
#undef __shared__
#undef __align__
#undef __syncthreads
