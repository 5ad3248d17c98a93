#include <memtune/compile/nvrtc_compiler.hpp>
#include <memtune/compile/nvrtc_library.hpp>

#include "nvrtc_api.hpp"
#include "python_nvrtc.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace memtune {

struct NvrtcLibrary::Api : detail::NvrtcApi {};

namespace {

namespace fs = std::filesystem;

// libnvrtc.so.* in a folder, the highest version first; the builtins
// library (libnvrtc-builtins) is NVRTC's own dependency, not an NVRTC.
std::vector<fs::path> libraries_in(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("libnvrtc.so", 0) == 0) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end(), std::greater<>());
  return found;
}

template <typename F> void resolve(void* handle, const char* name, F& out, const fs::path& path) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (!out) throw NvrtcLibraryError(path.string() + ": not an NVRTC library (no " + name + ")");
}

} // namespace

std::shared_ptr<const NvrtcLibrary> NvrtcLibrary::open(const fs::path& given) {
  static std::mutex mutex;
  static std::map<fs::path, std::weak_ptr<const NvrtcLibrary>> loaded; // one handle per library file
  std::error_code ec;
  if (!fs::exists(given, ec)) throw NvrtcLibraryError(given.string() + ": no such file or folder");
  fs::path file = given;
  if (fs::is_directory(given, ec)) {
    const auto found = libraries_in(given);
    if (found.empty()) throw NvrtcLibraryError(given.string() + ": no libnvrtc.so* in this folder");
    file = found.front();
  }
  file = fs::weakly_canonical(file, ec);

  std::lock_guard lock(mutex);
  if (auto it = loaded.find(file); it != loaded.end())
    if (auto library = it->second.lock()) return library;

  std::shared_ptr<NvrtcLibrary> library(new NvrtcLibrary);
  library->path_ = file;
  // RTLD_LOCAL: its nvrtc* symbols must not replace the linked NVRTC's.
  library->handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle_) {
    const char* why = dlerror();
    throw NvrtcLibraryError(file.string() + ": cannot load: " + (why ? why : "dlopen failed"));
  }
  library->api_ = std::make_unique<Api>();
  Api& a = *library->api_;
  void* h = library->handle_;
  // Every entry point, by its C name: nvrtcVersion into a.Version, ...
#define MEMTUNE_RESOLVE(entry) resolve(h, "nvrtc" #entry, a.entry, file)
  MEMTUNE_RESOLVE(GetErrorString);
  MEMTUNE_RESOLVE(Version);
  MEMTUNE_RESOLVE(GetNumSupportedArchs);
  MEMTUNE_RESOLVE(GetSupportedArchs);
  MEMTUNE_RESOLVE(CreateProgram);
  MEMTUNE_RESOLVE(DestroyProgram);
  MEMTUNE_RESOLVE(AddNameExpression);
  MEMTUNE_RESOLVE(CompileProgram);
  MEMTUNE_RESOLVE(GetProgramLogSize);
  MEMTUNE_RESOLVE(GetProgramLog);
  MEMTUNE_RESOLVE(GetLoweredName);
  MEMTUNE_RESOLVE(GetCUBINSize);
  MEMTUNE_RESOLVE(GetCUBIN);
#undef MEMTUNE_RESOLVE
  try {
    if (a.Version(&library->major_, &library->minor_) != NVRTC_SUCCESS)
      throw NvrtcLibraryError(file.string() + ": nvrtcVersion failed");
    library->archs_ = detail::api_supported_archs(a);
  } catch (const NvrtcLibraryError&) {
    throw;
  } catch (const std::exception& e) {
    throw NvrtcLibraryError(file.string() + ": " + e.what());
  }
  loaded[file] = library;
  return library;
}

NvrtcLibrary::~NvrtcLibrary() {
  if (handle_) dlclose(handle_);
}

std::string NvrtcLibrary::version() const { return std::to_string(major_) + "." + std::to_string(minor_); }

bool NvrtcLibrary::supports(int compute_capability) const {
  return std::binary_search(archs_.begin(), archs_.end(), compute_capability);
}

std::string NvrtcLibrary::description() const { return "NVRTC " + version() + " (" + path_.string() + ")"; }

CompileResult NvrtcLibrary::compile(const CompileRequest& request) const {
  return detail::api_compile(*api_, description(), archs_, request);
}

std::vector<fs::path> default_nvrtc_search_folders() {
  std::vector<fs::path> roots;
  for (const char* env : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* v = std::getenv(env); v && *v) roots.emplace_back(fs::path(v) / "lib");
  if (const char* home = std::getenv("HOME"); home && *home) roots.emplace_back(fs::path(home) / ".local" / "lib");
  roots.emplace_back("/usr/local/lib");
  roots.emplace_back("/usr/lib");
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const auto& root : roots)
    for (const auto& entry : fs::directory_iterator(root, ec)) {
      if (entry.path().filename().string().rfind("python3", 0) != 0) continue;
      for (const char* packages : {"site-packages", "dist-packages"})
        folders.push_back(entry.path() / packages / "nvidia" / "cuda_nvrtc" / "lib");
    }
  folders.emplace_back("/usr/local/cuda-11.8/lib64");
  return folders;
}

std::vector<fs::path> detail::python_nvrtc_folders(const std::string& python) {
  // A namespace package may span several folders: one line each.
  const std::string ask = "'" + python + "' -c 'import nvidia.cuda_nvrtc as m, os\n"
                          "for p in m.__path__: print(os.path.join(p, \"lib\"))' 2>/dev/null";
  std::vector<fs::path> out;
  FILE* pipe = ::popen(ask.c_str(), "r");
  if (!pipe) return out;
  std::array<char, 4096> line{};
  while (std::fgets(line.data(), static_cast<int>(line.size()), pipe)) {
    std::string text = line.data();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (!text.empty()) out.emplace_back(text);
  }
  ::pclose(pipe);
  return out;
}

CompilerChoice choose_compiler(int compute_capability, const std::optional<fs::path>& configured,
                               const std::vector<fs::path>& search_folders) {
  CompilerChoice c;
  const std::vector<int> archs = nvrtc_supported_archs();
  const std::string linked = "NVRTC " + nvrtc_version();
  if (std::binary_search(archs.begin(), archs.end(), compute_capability)) {
    c.compute_capability = compute_capability;
    c.compiler = linked;
    return c;
  }
  const std::string arch = "sm_" + std::to_string(compute_capability);
  const auto use = [&](const std::shared_ptr<const NvrtcLibrary>& library) {
    c.compute_capability = compute_capability;
    c.nvrtc_library = library->path().string();
    c.compiler = library->description();
    return c;
  };
  // A setting the user made must work, or say why not.
  std::optional<fs::path> setting = configured;
  std::string setting_name = "the configured NVRTC";
  if (!setting)
    if (const char* env = std::getenv("MEMTUNE_NVRTC_KEPLER"); env && *env) {
      setting = fs::path(env);
      setting_name = "MEMTUNE_NVRTC_KEPLER";
    }
  if (setting) {
    std::shared_ptr<const NvrtcLibrary> library;
    try {
      library = NvrtcLibrary::open(*setting);
    } catch (const NvrtcLibraryError& e) {
      throw NvrtcLibraryError(setting_name + ": " + e.what());
    }
    if (!library->supports(compute_capability))
      throw NvrtcLibraryError(setting_name + ": " + library->description() + " cannot compile " + arch +
                              " (it supports sm_" + std::to_string(library->supported_archs().front()) + " to sm_" +
                              std::to_string(library->supported_archs().back()) +
                              "); NVRTC 11.8 is the last to compile Kepler");
    return use(library);
  }
  const auto search = [&](const std::vector<fs::path>& folders) -> std::shared_ptr<const NvrtcLibrary> {
    for (const auto& folder : folders) {
      std::error_code ec;
      if (!fs::is_directory(folder, ec)) continue;
      try {
        const auto library = NvrtcLibrary::open(folder);
        if (library->supports(compute_capability)) return library;
      } catch (const NvrtcLibraryError&) {
        // Not usable here: keep looking.
      }
    }
    return nullptr;
  };
  if (const auto library = search(search_folders)) return use(library);
  // The default folders miss a pip install into a Python of another prefix:
  // ask python3 (once per process). A caller's own folders are the only ones.
  if (search_folders == default_nvrtc_search_folders()) {
    static const std::vector<fs::path> from_python = detail::python_nvrtc_folders();
    if (const auto library = search(from_python)) return use(library);
  }
  c.compute_capability = nearest_supported_arch(compute_capability);
  c.compiler = linked;
  c.note = linked + " cannot compile " + arch + " and no NVRTC 11.8 was found (pip install nvidia-cuda-nvrtc-cu11, "
           "or set MEMTUNE_NVRTC_KEPLER to its lib folder): registers come from sm_" +
           std::to_string(c.compute_capability);
  return c;
}

} // namespace memtune
