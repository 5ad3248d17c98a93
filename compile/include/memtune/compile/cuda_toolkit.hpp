#pragma once
// The CUDA toolkit memtune compiles with, found rather than configured: a
// user never types a system path. The root is the first of $CUDA_PATH, the
// folder of the NVRTC library memtune runs with (lib64/ or
// targets/<arch>/lib/ under the root), /usr/local/cuda, and the folder above
// the `nvcc` found on $PATH.
//
//   const CudaToolkit& t = cuda_toolkit();
//   t.include_dirs == {"/usr/local/cuda/include", "/usr/local/cuda/include/cccl"};
//   t.nvcc == "/usr/local/cuda/bin/nvcc" (empty when the toolkit ships none)
#include <filesystem>
#include <string>
#include <vector>

namespace memtune {

struct CudaToolkit {
  std::filesystem::path root;                       // empty when none was found
  std::vector<std::filesystem::path> include_dirs;  // include/ (cooperative_groups.h, cuda_fp16.h) and include/cccl (cuda/std/...)
  std::filesystem::path nvcc;                       // empty when absent
  std::string searched;                             // where it looked, for messages
};

// Found once per process (canonical paths).
const CudaToolkit& cuda_toolkit();

// The search itself, for tests: `cuda_path` stands for $CUDA_PATH,
// `nvrtc_library` for the loaded NVRTC's file, `path_env` for $PATH.
CudaToolkit find_cuda_toolkit(const std::string& cuda_path, const std::filesystem::path& nvrtc_library,
                              const std::string& path_env);

} // namespace memtune
