// The run-time NVML loader (cuda/include/memtune/cuda/nvml_api.hpp) against
// stand-in libraries built in the test tree (tests/fixtures/fake_nvml.cpp):
// a missing library, one without an entry point, a failing nvmlInit_v2, a
// device looked up by PCI bus id, typed errors, and one nvmlShutdown per
// successful init however the handle is moved.
#include <memtune/cuda/nvml_api.hpp>

#include "../thrown_message.hpp"

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <string>
#include <utility>

using namespace memtune;

namespace {

// The fake's controls, through its own handle (the same library, the same state).
struct FakeControls {
  void* handle = ::dlopen(MEMTUNE_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
  ~FakeControls() {
    if (handle) ::dlclose(handle);
  }
  void set(int init, int energy, int power, unsigned long long mj, unsigned mw) const {
    reinterpret_cast<void (*)(int, int, int, unsigned long long, unsigned)>(::dlsym(handle, "fake_nvml_set"))(
        init, energy, power, mj, mw);
  }
  [[nodiscard]] int inits() const { return reinterpret_cast<int (*)()>(::dlsym(handle, "fake_nvml_inits"))(); }
  [[nodiscard]] int shutdowns() const { return reinterpret_cast<int (*)()>(::dlsym(handle, "fake_nvml_shutdowns"))(); }
};

} // namespace

TEST_CASE("a missing NVML is NvmlUnavailable naming the library, not a crash") {
  const std::string message =
      thrown_message<nvml::NvmlUnavailable>([] { (void)nvml::NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1"); });
  CHECK(message.find("/nonexistent/libnvidia-ml.so.1") != std::string::npos);
  CHECK(message.find("could not be loaded") != std::string::npos);
}

TEST_CASE("an NVML without an entry point memtune uses is NvmlUnavailable naming it") {
  const std::string message = thrown_message<nvml::NvmlUnavailable>([] { (void)nvml::NvmlLibrary::open(MEMTUNE_FAKE_NVML_OLD); });
  CHECK(message.find("nvmlDeviceGetTotalEnergyConsumption") != std::string::npos);
}

TEST_CASE("a failing nvmlInit_v2 is NvmlUnavailable with NVML's own words, and nothing is shut down") {
  const FakeControls fake;
  REQUIRE(fake.handle);
  fake.set(9, 0, 0, 1000, 70000);
  const int shutdowns = fake.shutdowns();
  const std::string message = thrown_message<nvml::NvmlUnavailable>([] { (void)nvml::NvmlLibrary::open(MEMTUNE_FAKE_NVML); });
  CHECK(message.find("nvmlInit_v2 failed: Driver Not Loaded (9)") != std::string::npos);
  CHECK(fake.shutdowns() == shutdowns);
  fake.set(0, 0, 0, 1000, 70000);
}

TEST_CASE("the loaded NVML finds a device by PCI bus id and reads it; a failed call is a typed NvmlError") {
  const FakeControls fake;
  REQUIRE(fake.handle);
  fake.set(0, 0, 0, 123456, 81500);
  const int inits = fake.inits();
  const int shutdowns = fake.shutdowns();
  {
    nvml::NvmlLibrary lib = nvml::NvmlLibrary::open(MEMTUNE_FAKE_NVML);
    CHECK(fake.inits() == inits + 1);
    // NVML spells bus ids in hex with an 8-digit domain; the CUDA attributes give numbers.
    CHECK(nvml::pci_bus_id(0, 0x3b, 0) == "00000000:3b:00.0");
    nvmlDevice_t d = lib.device_by_pci_bus_id(nvml::pci_bus_id(0, 59, 0));
    REQUIRE(d != nullptr);
    unsigned long long mj = 0;
    MEMTUNE_NVML(lib, lib.api().nvmlDeviceGetTotalEnergyConsumption(d, &mj));
    CHECK(mj == 123456);
    unsigned mw = 0;
    MEMTUNE_NVML(lib, lib.api().nvmlDeviceGetPowerUsage(d, &mw));
    CHECK(mw == 81500);

    try {
      (void)lib.device_by_pci_bus_id("00000000:3c:00.0");
      FAIL("an unknown bus id must throw");
    } catch (const nvml::NvmlError& e) {
      CHECK(e.code() == nvml::kErrorNotFound);
      const std::string what = e.what();
      CHECK(what.find("nvmlDeviceGetHandleByPciBusId_v2") != std::string::npos);
      CHECK(what.find("Not Found (6)") != std::string::npos);
      CHECK(what.find("nvml_api.cpp:") != std::string::npos);
    }
    fake.set(0, nvml::kErrorNotSupported, 0, 0, 0);
    try {
      MEMTUNE_NVML(lib, lib.api().nvmlDeviceGetTotalEnergyConsumption(d, &mj));
      FAIL("an unsupported counter must throw");
    } catch (const nvml::NvmlError& e) {
      CHECK(e.code() == nvml::kErrorNotSupported);
      CHECK(std::string(e.what()).find("Not Supported (3)") != std::string::npos);
    }
    // Moved twice: still one shutdown, by the last owner.
    nvml::NvmlLibrary moved = std::move(lib);
    nvml::NvmlLibrary again = nvml::NvmlLibrary::open(MEMTUNE_FAKE_NVML);
    again = std::move(moved); // the second init is shut down here
    CHECK(fake.shutdowns() == shutdowns + 1);
  }
  CHECK(fake.shutdowns() == shutdowns + 2);
  CHECK(fake.inits() == inits + 2);
  fake.set(0, 0, 0, 1000, 70000);
}
