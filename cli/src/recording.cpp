#include "recording.hpp"

#include <memtune/io/version.hpp>

#include <nlohmann/json.hpp>

namespace memtune::cli {

nlohmann::json recording_json(const TuningResult& r) {
  nlohmann::json j{{"schema_version", kSchemaVersion},
                   {"tool", std::string("memtune ") + kVersion},
                   {"template", r.template_name},
                   {"kernel_fingerprint", r.kernel_fingerprint},
                   {"problem", r.problem},
                   {"device", r.device.to_json()},
                   {"mode", r.measured ? "measured" : "modeled"},
                   {"space", r.space.to_json()},
                   {"trials", trials_to_json(r)}};
  // What a report shows next to the trials (readers that do not know them ignore them).
  j["target"] = r.target_name;
  j["strategy"] = r.strategy;
  j["wall_seconds"] = r.wall_seconds;
  j["bytes_moved"] = r.bytes_moved;
  if (r.peak_dram_gbs > 0) j["peak_dram_gbps"] = r.peak_dram_gbs;
  if (r.ceiling) j["copy_ceiling_gbps"] = r.ceiling->gbps;
  if (!r.stop_reason.empty()) j["stop_reason"] = r.stop_reason;
  return j;
}

} // namespace memtune::cli
