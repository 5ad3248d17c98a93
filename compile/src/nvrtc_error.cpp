#include <memtune/compile/nvrtc_error.hpp>

namespace memtune::cuda {

NvrtcError::NvrtcError(nvrtcResult code, const std::string& call, const char* file, int line)
    : std::runtime_error(call + " failed: " + nvrtcGetErrorString(code) + " at " + file + ":" + std::to_string(line)),
      code_(code) {}

void throw_on_error(nvrtcResult code, const char* call, const char* file, int line) {
  if (code != NVRTC_SUCCESS) throw NvrtcError(code, call, file, line);
}

} // namespace memtune::cuda
