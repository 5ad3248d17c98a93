#pragma once
// NVML (the NVIDIA Management Library), loaded at run time like the driver
// (driver_api.hpp): memtune never links libnvidia-ml, so a binary still starts
// where it is missing, and only a run that asks for energy needs it.
//
// The toolkit ships no nvml.h in every install (the CUDA 13 toolkit here has
// none), so the handful of declarations memtune uses are written out below;
// their ABI has been stable since NVML 5 (the _v2 names are the current ones).
//
//   NvmlLibrary nvml = NvmlLibrary::open();          // throws NvmlUnavailable
//   nvmlDevice_t d = nvml.device_by_pci_bus_id("00000000:3B:00.0");
//   unsigned long long mj = 0;
//   MEMTUNE_NVML(nvml, nvml.api().nvmlDeviceGetTotalEnergyConsumption(d, &mj));
#include <stdexcept>
#include <string>
#include <type_traits>

extern "C" {
// The NVML declarations memtune uses, as nvml.h writes them.
typedef int memtune_nvmlReturn_t; // NOLINT: nvml.h's enum nvmlReturn_t, an int
typedef struct nvmlDevice_st* nvmlDevice_t;
}

namespace memtune::nvml {

using Return = memtune_nvmlReturn_t;

// The nvmlReturn_t codes memtune tells apart (nvml.h).
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorGpuIsLost = 15;

// X-macro list of the entry points memtune uses, with their signatures.
#define MEMTUNE_NVML_FUNCTIONS(X)                                                                                     \
  X(nvmlInit_v2, ::memtune::nvml::Return (*)())                                                                       \
  X(nvmlShutdown, ::memtune::nvml::Return (*)())                                                                      \
  X(nvmlErrorString, const char* (*)(::memtune::nvml::Return))                                                       \
  X(nvmlDeviceGetHandleByPciBusId_v2, ::memtune::nvml::Return (*)(const char*, nvmlDevice_t*))                        \
  X(nvmlDeviceGetName, ::memtune::nvml::Return (*)(nvmlDevice_t, char*, unsigned))                                    \
  X(nvmlDeviceGetTotalEnergyConsumption, ::memtune::nvml::Return (*)(nvmlDevice_t, unsigned long long*))              \
  X(nvmlDeviceGetPowerUsage, ::memtune::nvml::Return (*)(nvmlDevice_t, unsigned*))                                    \
  X(nvmlDeviceGetEnforcedPowerLimit, ::memtune::nvml::Return (*)(nvmlDevice_t, unsigned*))

struct NvmlApi {
#define MEMTUNE_NVML_DECLARE_POINTER(name, type) std::type_identity_t<type> name = nullptr;
  MEMTUNE_NVML_FUNCTIONS(MEMTUNE_NVML_DECLARE_POINTER)
#undef MEMTUNE_NVML_DECLARE_POINTER
};

// No usable NVML: the library is missing, lacks an entry point, or
// nvmlInit_v2 fails. The message says which.
class NvmlUnavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// An NVML call that failed: the code, its text, the call and where it was made,
//   "nvmlDeviceGetPowerUsage(d, &mw) failed: Not Supported (3) at measure/src/energy_meter.cpp:40"
class NvmlError : public std::runtime_error {
public:
  NvmlError(Return code, const std::string& text, const std::string& call, const char* file, int line);
  [[nodiscard]] Return code() const { return code_; }

private:
  Return code_;
};

// The library, opened and initialised; move-only, nvmlShutdown and dlclose on
// destruction (NVML counts its inits, so several may live at once).
class NvmlLibrary {
public:
  // The driver's libnvidia-ml.so.1, or `path` (tests load a stand-in).
  static NvmlLibrary open(const std::string& path = "libnvidia-ml.so.1");

  NvmlLibrary(NvmlLibrary&& other) noexcept;
  NvmlLibrary& operator=(NvmlLibrary&& other) noexcept;
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;
  ~NvmlLibrary();

  [[nodiscard]] const NvmlApi& api() const { return api_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  // "Not Supported (3)"; the code alone when NVML has no text for it.
  [[nodiscard]] std::string describe(Return code) const;
  // The device with that PCI bus id ("00000000:3B:00.0", as the CUDA device's
  // attributes give it: never by ordinal, which CUDA_VISIBLE_DEVICES and
  // CUDA_DEVICE_ORDER renumber). Throws NvmlError.
  [[nodiscard]] nvmlDevice_t device_by_pci_bus_id(const std::string& bus_id) const;

private:
  NvmlLibrary() = default;
  void* handle_ = nullptr;
  bool initialised_ = false; // nvmlInit_v2 succeeded: nvmlShutdown owed
  NvmlApi api_;
  std::string path_;
};

// "%08x:%02x:%02x.0" for a PCI domain, bus and device, as NVML spells bus ids.
std::string pci_bus_id(int domain, int bus, int device);

void throw_on_error(const NvmlLibrary& nvml, Return code, const char* call, const char* file, int line);

} // namespace memtune::nvml

// Throws NvmlError naming the call; never compiles away. `library` (an
// NvmlLibrary) gives the error's text.
#define MEMTUNE_NVML(library, call) ::memtune::nvml::throw_on_error((library), (call), #call, __FILE__, __LINE__)
