#pragma once
// NVRTC's error type, as cuda/error.hpp's DriverError: the result code, the
// call text and where it was made, e.g.
//   "nvrtcCompileProgram(p) failed: NVRTC_ERROR_INVALID_OPTION at compile/src/nvrtc_compiler.cpp:40"
// MEMTUNE_NVRTC(call) throws it.
#include <nvrtc.h>

#include <stdexcept>
#include <string>

namespace memtune::cuda {

class NvrtcError : public std::runtime_error {
public:
  NvrtcError(nvrtcResult code, const std::string& call, const char* file, int line);
  [[nodiscard]] nvrtcResult code() const { return code_; }

private:
  nvrtcResult code_;
};

void throw_on_error(nvrtcResult code, const char* call, const char* file, int line);

} // namespace memtune::cuda

#define MEMTUNE_NVRTC(call) ::memtune::cuda::throw_on_error((call), #call, __FILE__, __LINE__)
