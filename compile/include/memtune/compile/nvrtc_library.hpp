#pragma once
// An NVRTC loaded at run time (dlopen) beside the one memtune links. NVRTC 12
// and later cannot compile for Kepler (sm_35, sm_37); NVRTC 11.8 still can,
// and ships, for example, in the `nvidia-cuda-nvrtc-cu11` Python wheel
// (site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.11.2). Loading it gives a
// modeled Kepler target the registers ptxas really assigns for sm_35.
//
//   auto nvrtc = NvrtcLibrary::open("/opt/venv/.../nvidia/cuda_nvrtc/lib");   // a file or its folder
//   nvrtc->version() == "11.8"; nvrtc->supports(35) == true;
//   CompileResult r = nvrtc->compile(request);   // same contract as nvrtc_compile()
#include <memtune/compile/compile_request.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune {

// A library that cannot be used: not found, not an NVRTC, or one that cannot
// compile the architecture asked for. The message says which and where.
class NvrtcLibraryError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class NvrtcLibrary {
public:
  // Loads `path`: a libnvrtc shared library, or a folder holding one
  // (libnvrtc.so.*, newest name first). Libraries are loaded once per process
  // and shared. Throws NvrtcLibraryError.
  static std::shared_ptr<const NvrtcLibrary> open(const std::filesystem::path& path);

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::string version() const; // "11.8"
  [[nodiscard]] int major() const { return major_; }
  [[nodiscard]] const std::vector<int>& supported_archs() const { return archs_; } // ascending
  [[nodiscard]] bool supports(int compute_capability) const;
  // "NVRTC 11.8 (/path/libnvrtc.so.11.2)"
  [[nodiscard]] std::string description() const;

  // Same contract as nvrtc_compile(): a compile error is data; other NVRTC
  // errors throw cuda::NvrtcError; an architecture this library cannot
  // target is std::invalid_argument.
  [[nodiscard]] CompileResult compile(const CompileRequest& request) const;

  ~NvrtcLibrary();
  NvrtcLibrary(const NvrtcLibrary&) = delete;
  NvrtcLibrary& operator=(const NvrtcLibrary&) = delete;

  struct Api; // the resolved entry points

private:
  NvrtcLibrary() = default;
  void* handle_ = nullptr;
  std::filesystem::path path_;
  int major_ = 0, minor_ = 0;
  std::vector<int> archs_;
  std::unique_ptr<Api> api_;
};

// Which compiler a modeled target's candidates are compiled with.
struct CompilerChoice {
  int compute_capability = 0;  // the architecture compiled for
  std::string nvrtc_library;   // a loaded NVRTC's path; empty: the NVRTC memtune links
  std::string compiler;        // "NVRTC 13.0" or "NVRTC 11.8 (/path/libnvrtc.so.11.2)"
  // Why the architecture differs from the target's, when it does: "NVRTC 13.0
  // cannot compile sm_35 and no NVRTC 11.8 was found (set MEMTUNE_NVRTC_KEPLER
  // or pip install nvidia-cuda-nvrtc-cu11)".
  std::string note;
};

// Folders where a pip-installed nvidia-cuda-nvrtc-cu11 or a CUDA 11.8 toolkit
// puts libnvrtc.so.11.*: under $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local
// and /usr (every python3.* site-packages or dist-packages), and
// /usr/local/cuda-11.8/lib64.
[[nodiscard]] std::vector<std::filesystem::path> default_nvrtc_search_folders();

// The compiler for `compute_capability`: the linked NVRTC when it supports
// it; else a loaded NVRTC that does, from `configured` (a path the user gave:
// TuneOptions::nvrtc_kepler), else $MEMTUNE_NVRTC_KEPLER, else the first of
// `search_folders` holding one (with the default folders, then where python3
// on PATH imports nvidia.cuda_nvrtc from, asked once per process: a pip
// install into any Python); else the linked NVRTC's nearest architecture,
// and the note says why. A configured path (argument or environment) that
// cannot be used throws NvrtcLibraryError naming it: a setting the user made
// is never ignored silently.
[[nodiscard]] CompilerChoice choose_compiler(int compute_capability,
                                             const std::optional<std::filesystem::path>& configured,
                                             const std::vector<std::filesystem::path>& search_folders =
                                                 default_nvrtc_search_folders());

} // namespace memtune
