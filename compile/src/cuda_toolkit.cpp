#include <memtune/compile/cuda_toolkit.hpp>

#include <nvrtc.h>

#include <cstdlib>
#include <sstream>

#include <dlfcn.h>

namespace memtune {
namespace {

namespace fs = std::filesystem;

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

fs::path canonical_or_self(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::canonical(p, ec);
  return ec ? p : c;
}

// A toolkit root holds include/cuda_runtime.h or include/cooperative_groups.h.
bool is_root(const fs::path& root) {
  return !root.empty() && (path_exists(root / "include" / "cooperative_groups.h") || path_exists(root / "include" / "cuda_runtime.h"));
}

// <root>/lib64/libnvrtc.so or <root>/targets/x86_64-linux/lib/libnvrtc.so.
fs::path root_of_library(const fs::path& library) {
  if (library.empty()) return {};
  const fs::path folder = canonical_or_self(library).parent_path();
  for (const fs::path& candidate : {folder.parent_path(), folder.parent_path().parent_path().parent_path()})
    if (is_root(candidate)) return candidate;
  return {};
}

fs::path linked_nvrtc_file() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) != 0 && info.dli_fname) return info.dli_fname;
  return {};
}

} // namespace

CudaToolkit find_cuda_toolkit(const std::string& cuda_path, const fs::path& nvrtc_library, const std::string& path_env) {
  std::vector<fs::path> roots;
  std::ostringstream searched;
  if (!cuda_path.empty()) {
    roots.emplace_back(cuda_path);
    searched << "$CUDA_PATH=" << cuda_path << ", ";
  }
  if (auto r = root_of_library(nvrtc_library); !r.empty()) roots.push_back(r);
  searched << "NVRTC's folder (" << (nvrtc_library.empty() ? std::string("unknown") : nvrtc_library.parent_path().string())
           << "), /usr/local/cuda, $PATH";
  roots.emplace_back("/usr/local/cuda");
  std::istringstream path(path_env);
  for (std::string folder; std::getline(path, folder, ':');)
    if (!folder.empty() && path_exists(fs::path(folder) / "nvcc")) roots.push_back(fs::path(folder).parent_path());

  CudaToolkit t;
  t.searched = searched.str();
  for (const auto& root : roots) {
    if (!is_root(root)) continue;
    t.root = canonical_or_self(root);
    break;
  }
  if (t.root.empty()) return t;
  t.include_dirs.push_back(canonical_or_self(t.root / "include"));
  if (path_exists(t.root / "include" / "cccl")) t.include_dirs.push_back(canonical_or_self(t.root / "include" / "cccl"));
  if (path_exists(t.root / "bin" / "nvcc")) t.nvcc = canonical_or_self(t.root / "bin" / "nvcc");
  return t;
}

const CudaToolkit& cuda_toolkit() {
  static const CudaToolkit t = [] {
    const char* cuda_path = std::getenv("CUDA_PATH");
    const char* path = std::getenv("PATH");
    return find_cuda_toolkit(cuda_path ? cuda_path : "", linked_nvrtc_file(), path ? path : "");
  }();
  return t;
}

} // namespace memtune
