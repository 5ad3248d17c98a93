#pragma once
// NVRTC 11.8 (Kepler) where a pip install put it in a Python that the fixed
// folders of default_nvrtc_search_folders() do not cover (the system's, pyenv's,
// a module's): the interpreter says where nvidia.cuda_nvrtc lies.
#include <filesystem>
#include <string>
#include <vector>

namespace memtune::detail {

// The package's lib folders as `python` imports it; empty when the
// interpreter or the package is missing. Runs the interpreter: call it only
// when nothing else compiles the architecture.
[[nodiscard]] std::vector<std::filesystem::path> python_nvrtc_folders(const std::string& python = "python3");

} // namespace memtune::detail
