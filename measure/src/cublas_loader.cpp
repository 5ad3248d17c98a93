#include "cublas_loader.hpp"

#include <dlfcn.h>

#include <vector>

namespace memtune::measure_detail {
namespace {

CublasApi load() {
  CublasApi api;
  std::vector<std::string> candidates{"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
#ifdef MEMTUNE_CUDA_LIBRARY_DIR
  for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
    candidates.push_back(std::string(MEMTUNE_CUDA_LIBRARY_DIR) + "/" + name);
#endif
  void* handle = nullptr;
  std::string tried;
  for (const auto& name : candidates) {
    handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      api.library = name;
      break;
    }
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + name + (why ? std::string(" (") + why + ")" : std::string());
  }
  if (!handle) {
    api.error = "cuBLAS not found: tried " + tried;
    return api;
  }
  auto symbol = [&](const char* name) -> void* {
    dlerror();
    void* p = dlsym(handle, name);
    if (!p && api.error.empty()) {
      const char* why = dlerror();
      api.error = api.library + " has no symbol " + name + (why ? std::string(" (") + why + ")" : std::string());
    }
    return p;
  };
  api.create = reinterpret_cast<CublasApi::Create>(symbol("cublasCreate_v2"));
  api.destroy = reinterpret_cast<CublasApi::Destroy>(symbol("cublasDestroy_v2"));
  api.set_stream = reinterpret_cast<CublasApi::SetStream>(symbol("cublasSetStream_v2"));
  api.sgemv = reinterpret_cast<CublasApi::Sgemv>(symbol("cublasSgemv_v2"));
  // The library stays loaded for the process: unloading a CUDA library while
  // the runtime may still hold its state is not worth the risk.
  return api;
}

} // namespace

const CublasApi& cublas_api() {
  static const CublasApi api = load();
  return api;
}

std::string cublas_status_name(int status) {
  switch (status) {
  case 0: return "CUBLAS_STATUS_SUCCESS";
  case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
  case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
  case 7: return "CUBLAS_STATUS_INVALID_VALUE";
  case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
  case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
  case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
  case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
  case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
  case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
  default: return "cuBLAS status " + std::to_string(status);
  }
}

} // namespace memtune::measure_detail
