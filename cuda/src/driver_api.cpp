#include <memtune/cuda/driver_api.hpp>

#include <dlfcn.h>

#include <mutex>

namespace memtune::cuda {
namespace {

struct Loaded {
  DriverApi api;
  std::string error; // empty when the driver loaded and initialised
};

Loaded load() {
  Loaded out;
  // libcuda.so.1 is the name the driver installs; libcuda.so only exists with
  // the development symlink.
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    out.error = std::string("no NVIDIA driver: libcuda.so.1 could not be loaded (") + (why ? why : "unknown") + ")";
    return out;
  }
  // The handle is never closed: the driver stays loaded for the process.
  using GetProc = decltype(&::cuGetProcAddress);
  auto get_proc = reinterpret_cast<GetProc>(dlsym(handle, "cuGetProcAddress_v2"));
  if (!get_proc) {
    out.error = "NVIDIA driver too old: libcuda.so.1 has no cuGetProcAddress_v2 (CUDA 12.0 or newer driver needed)";
    return out;
  }
#define MEMTUNE_RESOLVE(name)                                                                                         \
  {                                                                                                                   \
    void* fn = nullptr;                                                                                               \
    CUdriverProcAddressQueryResult status{};                                                                          \
    if (get_proc(#name, &fn, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS || !fn) {            \
      out.error = "NVIDIA driver too old: it lacks " #name " for CUDA " + std::to_string(CUDA_VERSION / 1000) + "." + \
                  std::to_string(CUDA_VERSION % 1000 / 10);                                                           \
      return out;                                                                                                     \
    }                                                                                                                 \
    out.api.name = reinterpret_cast<decltype(out.api.name)>(fn);                                                      \
  }
  MEMTUNE_DRIVER_FUNCTIONS(MEMTUNE_RESOLVE)
#undef MEMTUNE_RESOLVE

  const CUresult init = out.api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    out.api.cuGetErrorName(init, &name);
    out.error = std::string("the NVIDIA driver is installed but cuInit failed: ") + (name ? name : "unknown error") +
                (init == CUDA_ERROR_NO_DEVICE ? " (no CUDA-capable GPU is visible)" : "");
    return out;
  }
  int count = 0;
  if (out.api.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) out.error = "no CUDA-capable GPU is visible";
  return out;
}

const Loaded& loaded() {
  static const Loaded instance = load();
  return instance;
}

} // namespace

const DriverApi& driver_api() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw DriverUnavailable(l.error);
  return l.api;
}

bool driver_available() noexcept {
  try {
    return loaded().error.empty();
  } catch (...) {
    return false;
  }
}

std::string driver_unavailable_reason() noexcept {
  try {
    return loaded().error;
  } catch (...) {
    return "driver probe failed";
  }
}

std::optional<int> device_count() noexcept {
  if (!driver_available()) return std::nullopt;
  int count = 0;
  if (loaded().api.cuDeviceGetCount(&count) != CUDA_SUCCESS) return std::nullopt;
  return count;
}

} // namespace memtune::cuda
