#pragma once
// The local GPU, read from the driver, as a Target, and the fingerprint that
// keys profiles: a profile tuned on one GPU model is not reused on another.
#include <memtune/io/json_fields.hpp>
#include <memtune/model/target.hpp>

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <string>

namespace memtune {

struct DeviceFingerprint {
  std::string name;      // "NVIDIA H100 80GB HBM3"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;

  [[nodiscard]] std::string compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
  [[nodiscard]] nlohmann::json to_json() const;
  // Throws InputError naming the field (compute_capability must look like "9.0").
  static DeviceFingerprint from_json(const nlohmann::json& j);
  static DeviceFingerprint from_fields(const io::JsonFields& j);
  friend bool operator==(const DeviceFingerprint&, const DeviceFingerprint&) = default;
};

DeviceFingerprint fingerprint(const Target& target);

// A file of one GPU model's results: `path` with the model's name and SM
// count before the extension ("f.json" -> "f.nvidia-h100-80gb-hbm3-132sm.json"),
// for outputs that would otherwise mix models (merge, --mixed-devices).
[[nodiscard]] std::filesystem::path path_for_model(const std::filesystem::path& path, const DeviceFingerprint& model);

// The GPU at `ordinal`, with its limits and memory system from the driver
// (needs a driver; throws cuda::DriverUnavailable otherwise). Named "local".
Target local_target(int ordinal = 0);

} // namespace memtune
