#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/launch.hpp>

namespace memtune::cuda {

void allow_dynamic_smem(CUfunction function, const LaunchSpec& launch) {
  if (launch.dynamic_smem_bytes <= kDefaultDynamicSmemLimit) return;
  MEMTUNE_CU(driver_api().cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             static_cast<int>(launch.dynamic_smem_bytes)));
}

void launch_kernel(CUfunction function, const LaunchSpec& launch, CUstream stream, void** args) {
  const Dim3& g = launch.grid;
  const Dim3& b = launch.block;
  const auto smem = static_cast<unsigned>(launch.dynamic_smem_bytes);
  if (launch.cooperative)
    MEMTUNE_CU(driver_api().cuLaunchCooperativeKernel(function, g.x, g.y, g.z, b.x, b.y, b.z, smem, stream, args));
  else
    MEMTUNE_CU(driver_api().cuLaunchKernel(function, g.x, g.y, g.z, b.x, b.y, b.z, smem, stream, args, nullptr));
}

} // namespace memtune::cuda
