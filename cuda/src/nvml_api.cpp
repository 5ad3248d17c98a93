#include <memtune/cuda/nvml_api.hpp>

#include <dlfcn.h>

#include <cstdio>
#include <utility>

namespace memtune::nvml {

NvmlError::NvmlError(Return code, const std::string& text, const std::string& call, const char* file, int line)
    : std::runtime_error(call + " failed: " + text + " at " + file + ":" + std::to_string(line)), code_(code) {}

NvmlLibrary NvmlLibrary::open(const std::string& path) {
  NvmlLibrary lib;
  lib.path_ = path;
  lib.handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle_) {
    const char* why = ::dlerror();
    throw NvmlUnavailable("NVML (" + path + ") could not be loaded: " + (why ? why : "unknown reason") +
                          "; it comes with the NVIDIA driver");
  }
#define MEMTUNE_NVML_RESOLVE(name, type)                                                                              \
  lib.api_.name = reinterpret_cast<type>(::dlsym(lib.handle_, #name));                                                \
  if (!lib.api_.name) throw NvmlUnavailable("NVML (" + path + ") has no " #name ": a driver older than NVML 5");
  MEMTUNE_NVML_FUNCTIONS(MEMTUNE_NVML_RESOLVE)
#undef MEMTUNE_NVML_RESOLVE
  if (const Return r = lib.api_.nvmlInit_v2(); r != kSuccess) {
    throw NvmlUnavailable("nvmlInit_v2 failed: " + lib.describe(r));
  }
  lib.initialised_ = true;
  return lib;
}

NvmlLibrary::NvmlLibrary(NvmlLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), initialised_(std::exchange(other.initialised_, false)),
      api_(std::exchange(other.api_, {})), path_(std::move(other.path_)) {}

NvmlLibrary& NvmlLibrary::operator=(NvmlLibrary&& other) noexcept {
  if (this != &other) {
    NvmlLibrary old(std::move(*this));
    handle_ = std::exchange(other.handle_, nullptr);
    initialised_ = std::exchange(other.initialised_, false);
    api_ = std::exchange(other.api_, {});
    path_ = std::move(other.path_);
  }
  return *this;
}

NvmlLibrary::~NvmlLibrary() {
  if (!handle_) return;
  if (initialised_) {
    if (const Return r = api_.nvmlShutdown(); r != kSuccess)
      std::fprintf(stderr, "memtune: nvmlShutdown() failed: NVML error %d\n", r);
  }
  ::dlclose(handle_);
}

std::string NvmlLibrary::describe(Return code) const {
  const char* text = api_.nvmlErrorString ? api_.nvmlErrorString(code) : nullptr;
  const std::string number = "(" + std::to_string(code) + ")";
  return text ? std::string(text) + " " + number : "NVML error " + number;
}

nvmlDevice_t NvmlLibrary::device_by_pci_bus_id(const std::string& bus_id) const {
  nvmlDevice_t device = nullptr;
  MEMTUNE_NVML(*this, api_.nvmlDeviceGetHandleByPciBusId_v2(bus_id.c_str(), &device));
  return device;
}

std::string pci_bus_id(int domain, int bus, int device) {
  char text[32];
  std::snprintf(text, sizeof text, "%08x:%02x:%02x.0", static_cast<unsigned>(domain), static_cast<unsigned>(bus),
                static_cast<unsigned>(device));
  return text;
}

void throw_on_error(const NvmlLibrary& library, Return code, const char* call, const char* file, int line) {
  if (code != kSuccess) throw NvmlError(code, library.describe(code), call, file, line);
}

} // namespace memtune::nvml
