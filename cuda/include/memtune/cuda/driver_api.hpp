#pragma once
// The CUDA driver API, loaded at run time.
//
// memtune never links libcuda: a binary linked against it does not even start
// on a machine without the NVIDIA driver (CI, most laptops). Instead the
// library is dlopen()ed on first use and every entry point is resolved through
// cuGetProcAddress with the CUDA version of the headers we compiled against,
// which picks the right versioned symbol (cuMemAlloc -> cuMemAlloc_v2, ...).
//
//   const DriverApi& cu = driver_api();   // throws DriverUnavailable without a driver
//   cu.cuInit(0);
#include <cuda.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace memtune::cuda {

// X-macro list of the entry points memtune uses.
#define MEMTUNE_DRIVER_FUNCTIONS(X)                                                                                   \
  X(cuInit)                                                                                                           \
  X(cuDriverGetVersion)                                                                                               \
  X(cuGetErrorName)                                                                                                   \
  X(cuGetErrorString)                                                                                                 \
  X(cuDeviceGetCount)                                                                                                 \
  X(cuDeviceGet)                                                                                                      \
  X(cuDeviceGetName)                                                                                                  \
  X(cuDeviceGetAttribute)                                                                                             \
  X(cuDeviceTotalMem)                                                                                                 \
  X(cuDevicePrimaryCtxRetain)                                                                                         \
  X(cuDevicePrimaryCtxRelease)                                                                                        \
  X(cuCtxSetCurrent)                                                                                                  \
  X(cuCtxSynchronize)                                                                                                 \
  X(cuCtxGetLimit)                                                                                                    \
  X(cuModuleLoadData)                                                                                                 \
  X(cuModuleUnload)                                                                                                   \
  X(cuModuleGetFunction)                                                                                              \
  X(cuModuleGetGlobal)                                                                                                \
  X(cuFuncGetAttribute)                                                                                               \
  X(cuFuncSetAttribute)                                                                                               \
  X(cuLaunchKernel)                                                                                                   \
  X(cuLaunchCooperativeKernel)                                                                                        \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                                      \
  X(cuMemAlloc)                                                                                                       \
  X(cuMemFree)                                                                                                        \
  X(cuMemAllocHost)                                                                                                   \
  X(cuMemFreeHost)                                                                                                    \
  X(cuMemGetInfo)                                                                                                     \
  X(cuMemcpyHtoD)                                                                                                     \
  X(cuMemcpyDtoH)                                                                                                     \
  X(cuMemcpyHtoDAsync)                                                                                                \
  X(cuMemcpyDtoHAsync)                                                                                                \
  X(cuMemcpyDtoDAsync)                                                                                                \
  X(cuMemsetD8Async)                                                                                                  \
  X(cuMemsetD32Async)                                                                                                 \
  X(cuStreamCreate)                                                                                                   \
  X(cuStreamDestroy)                                                                                                  \
  X(cuStreamSynchronize)                                                                                              \
  X(cuEventCreate)                                                                                                    \
  X(cuEventDestroy)                                                                                                   \
  X(cuEventRecord)                                                                                                    \
  X(cuEventQuery)                                                                                                     \
  X(cuEventSynchronize)                                                                                               \
  X(cuEventElapsedTime)

struct DriverApi {
  // decltype(&cuMemAlloc) expands the header's macro, so each pointer has the
  // signature of the versioned symbol the headers declare.
#define MEMTUNE_DECLARE_POINTER(name) decltype(&::name) name = nullptr;
  MEMTUNE_DRIVER_FUNCTIONS(MEMTUNE_DECLARE_POINTER)
#undef MEMTUNE_DECLARE_POINTER
};

// No usable driver: libcuda missing, too old, or cuInit failing (no device).
class DriverUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Loads the driver once (thread-safe) and calls cuInit(0).
// Throws DriverUnavailable with the reason when that is impossible.
const DriverApi& driver_api();

// True when driver_api() would succeed; never throws. Used to skip GPU work.
bool driver_available() noexcept;
// Why the driver is unavailable ("" when it is available).
std::string driver_unavailable_reason() noexcept;
// The GPUs the driver reports (cuDeviceGetCount after cuInit: no context is
// created, so counting holds no GPU memory); nullopt without a usable driver.
std::optional<int> device_count() noexcept;

} // namespace memtune::cuda
