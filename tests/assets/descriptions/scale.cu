// y = alpha * x (+ y when ACCUMULATE), with a header given in memory
// (scale_common.cuh, listed in "files") and one found on an include path
// (include/scale_math.cuh).
#include "scale_common.cuh"
#include "scale_math.cuh"

template <int BLOCK, bool ACCUMULATE, memtune_test::Load LOAD>
__global__ void __launch_bounds__(BLOCK) scale(float* y, const float* __restrict__ x, float alpha, long long n) {
#ifdef MEMTUNE_TEST_BLOCKS // a macro reading a parameter is not defined for the reference kernel
  static_assert(MEMTUNE_TEST_BLOCKS > 0, "the grid size reaches the source as a macro");
#endif
  for (long long i = memtune_test::global_index(); i < n; i += memtune_test::grid_stride())
    y[i] = memtune_test::axpy<ACCUMULATE>(alpha, memtune_test::load<LOAD>(x + i), y[i]);
}
