#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>

#include <cstdio>

namespace memtune::cuda {

std::string describe(CUresult code) {
  std::string text = "CUresult " + std::to_string(static_cast<int>(code));
  if (!driver_available()) return text;
  const DriverApi& cu = driver_api();
  const char* name = nullptr;
  const char* what = nullptr;
  if (cu.cuGetErrorName(code, &name) == CUDA_SUCCESS && name) text = name;
  if (cu.cuGetErrorString(code, &what) == CUDA_SUCCESS && what) text += std::string(" (") + what + ")";
  return text;
}

namespace {
std::string where(const char* file, int line) { return std::string(file) + ":" + std::to_string(line); }
} // namespace

DriverError::DriverError(CUresult code, const std::string& call, const char* file, int line)
    : std::runtime_error(call + " failed: " + describe(code) + " at " + where(file, line)), code_(code) {}

bool DriverError::is_sticky() const {
  switch (code_) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED: return true;
  default: return false;
  }
}

void throw_on_error(CUresult code, const char* call, const char* file, int line) {
  if (code != CUDA_SUCCESS) throw DriverError(code, call, file, line);
}

void log_on_error(CUresult code, const char* call, const char* file, int line) noexcept {
  if (code == CUDA_SUCCESS) return;
  try {
    std::fprintf(stderr, "memtune: %s failed: %s at %s:%d\n", call, describe(code).c_str(), file, line);
  } catch (...) {
    std::fprintf(stderr, "memtune: %s failed at %s:%d\n", call, file, line);
  }
}

} // namespace memtune::cuda
