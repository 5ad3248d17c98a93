#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/device.hpp>

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace memtune {

nlohmann::json DeviceFingerprint::to_json() const {
  return {{"name", name}, {"compute_capability", compute_capability()}, {"sm_count", sm_count}};
}

DeviceFingerprint DeviceFingerprint::from_json(const nlohmann::json& j) {
  try {
    DeviceFingerprint f;
    f.name = j.at("name").get<std::string>();
    const std::string cc = j.at("compute_capability").get<std::string>();
    const auto dot = cc.find('.');
    if (dot == std::string::npos) throw std::invalid_argument("compute_capability must look like \"9.0\"");
    f.cc_major = std::stoi(cc.substr(0, dot));
    f.cc_minor = std::stoi(cc.substr(dot + 1));
    f.sm_count = j.at("sm_count").get<int>();
    return f;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("device: ") + e.what());
  }
}

DeviceFingerprint fingerprint(const Target& t) { return {t.display_name, t.cc_major, t.cc_minor, t.sm_count}; }

Target local_target(int ordinal) {
  const cuda::DriverApi& cu = cuda::driver_api();
  CUdevice dev = 0;
  MEMTUNE_CU(cu.cuDeviceGet(&dev, ordinal));
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    MEMTUNE_CU(cu.cuDeviceGetAttribute(&v, a, dev));
    return v;
  };
  char name[256] = {};
  MEMTUNE_CU(cu.cuDeviceGetName(name, sizeof name, dev));

  Target t;
  t.name = "local";
  t.display_name = name;
  t.origin = "driver";
  t.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  t.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  t.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  t.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  t.max_threads_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  t.max_warps_per_sm = t.max_threads_per_sm / t.warp_size;
  t.max_blocks_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  t.regs_per_sm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  t.max_regs_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  t.max_regs_per_thread = 255;
  t.smem_per_sm = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  t.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  t.smem_per_block = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
  t.smem_per_block_optin = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  t.reserved_smem_per_block = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  // Kepler (cc 3.x) is the only architecture with a selectable 8-byte bank mode.
  t.bank_widths_bytes = t.cc_major == 3 ? std::vector<int>{4, 8} : std::vector<int>{4};
  t.l2_bytes = static_cast<std::size_t>(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  t.sm_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000.0;
  t.mem_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000.0;
  // Double data rate: two transfers per memory clock over the whole bus.
  t.dram_bandwidth_gbs = 2.0 * t.mem_clock_mhz * 1e6 * (attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8.0) / 1e9;
  t.sources["*"] = "CUDA driver (cuDeviceGetAttribute)";
  return t;
}

} // namespace memtune
