#pragma once
// The one way a LaunchSpec reaches the GPU, for the reference run, every
// candidate, the watchdog's yardstick and the application's launcher alike:
// the same opt-in above the default shared-memory limit and the same
// cuLaunchKernel, so a configuration cannot launch one way while tuned and
// another way in the application.
#include <memtune/cuda/launch_spec.hpp>

#include <cuda.h>

#include <cstddef>

namespace memtune::cuda {

// Dynamic shared memory a kernel may use without opting in (every GPU since
// Volta; more needs CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
inline constexpr std::size_t kDefaultDynamicSmemLimit = 48 * 1024;

// Raises the function's dynamic shared-memory limit to what `launch` asks,
// where that is above the default; throws DriverError when the GPU refuses.
void allow_dynamic_smem(CUfunction function, const LaunchSpec& launch);

// Launches `function` with the grid, block and dynamic shared memory of
// `launch` on `stream`, `args` as cuLaunchKernel takes them; a cooperative
// launch through cuLaunchCooperativeKernel.
void launch_kernel(CUfunction function, const LaunchSpec& launch, CUstream stream, void** args);

} // namespace memtune::cuda
