#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/measure/device.hpp>

#include <nlohmann/json.hpp>

#include <cctype>
#include <stdexcept>

namespace memtune {

nlohmann::json DeviceFingerprint::to_json() const {
  return {{"name", name}, {"compute_capability", compute_capability()}, {"sm_count", sm_count}};
}

DeviceFingerprint DeviceFingerprint::from_json(const nlohmann::json& j) { return from_fields(io::JsonFields(j)); }

DeviceFingerprint DeviceFingerprint::from_fields(const io::JsonFields& j) {
  DeviceFingerprint f;
  f.name = j.at("name").nonempty_string();
  const io::JsonFields cc = j.at("compute_capability");
  const std::string text = cc.string();
  // "9.0": one or two digits, a dot, one digit (as the driver reports it).
  const auto dot = text.find('.');
  auto digits = [](const std::string& s, std::size_t most) {
    return !s.empty() && s.size() <= most && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (dot == std::string::npos || !digits(text.substr(0, dot), 2) || !digits(text.substr(dot + 1), 1))
    cc.fail("expected a compute capability such as \"9.0\", got " + io::shown(cc.value()));
  f.cc_major = std::stoi(text.substr(0, dot));
  f.cc_minor = std::stoi(text.substr(dot + 1));
  f.sm_count = j.at("sm_count").integer<int>(1, 1 << 16);
  return f;
}

DeviceFingerprint fingerprint(const Target& t) { return {t.display_name, t.cc_major, t.cc_minor, t.sm_count}; }

std::filesystem::path path_for_model(const std::filesystem::path& path, const DeviceFingerprint& model) {
  std::string slug;
  for (const char c : model.name + " " + std::to_string(model.sm_count) + "sm") {
    if (std::isalnum(static_cast<unsigned char>(c))) slug += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  std::filesystem::path out = path;
  out.replace_filename(path.stem().string() + "." + slug + path.extension().string());
  return out;
}

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
  MEMTUNE_CU(cu.cuDeviceTotalMem(&t.memory_bytes, dev));
  t.sm_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000.0;
  t.mem_clock_mhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000.0;
  // Double data rate: two transfers per memory clock over the whole bus.
  t.dram_bandwidth_gbs = 2.0 * t.mem_clock_mhz * 1e6 * (attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH) / 8.0) / 1e9;
  t.sources["*"] = "CUDA driver (cuDeviceGetAttribute)";
  return t;
}

} // namespace memtune
