#pragma once
// The driver API's error type (NVRTC's is compile/nvrtc_error.hpp). Each carries the result code, its name, the call
// text and where it was made, so a failure reads like
//   "cuModuleLoadData(&raw, image) failed: CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid) at cuda/src/module.cpp:12"
//
// MEMTUNE_CU(call) throws; MEMTUNE_CU_NOTHROW(call) only
// logs, for destructors. None of them compiles away in release builds.
#include <cuda.h>

#include <stdexcept>
#include <string>

namespace memtune::cuda {

class DriverError : public std::runtime_error {
public:
  DriverError(CUresult code, const std::string& call, const char* file, int line);
  [[nodiscard]] CUresult code() const { return code_; }
  // Errors after which the context is unusable (illegal address, trap, ...):
  // every later call on it fails too.
  [[nodiscard]] bool is_sticky() const;

private:
  CUresult code_;
};

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; safe without a driver.
std::string describe(CUresult code);

void throw_on_error(CUresult code, const char* call, const char* file, int line);
void log_on_error(CUresult code, const char* call, const char* file, int line) noexcept;

} // namespace memtune::cuda

#define MEMTUNE_CU(call) ::memtune::cuda::throw_on_error((call), #call, __FILE__, __LINE__)
#define MEMTUNE_CU_NOTHROW(call) ::memtune::cuda::log_on_error((call), #call, __FILE__, __LINE__)
