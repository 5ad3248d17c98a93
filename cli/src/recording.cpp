#include "recording.hpp"

#include <memtune/version.hpp>

#include <nlohmann/json.hpp>

namespace memtune::cli {

nlohmann::json recording_json(const TuningResult& r) {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& e : r.evaluations) {
    nlohmann::json t{{"config", r.space.config_to_json(e.config)}, {"status", to_string(e.status)}};
    if (e.timing) t["time_s"] = e.timing->median_s;
    if (!e.reason.empty()) t["reason"] = e.reason;
    trials.push_back(std::move(t));
  }
  return {{"schema_version", kSchemaVersion},
          {"tool", std::string("memtune ") + kVersion},
          {"template", r.template_name},
          {"kernel_fingerprint", r.kernel_fingerprint},
          {"problem", r.problem},
          {"device", r.device.to_json()},
          {"mode", r.measured ? "measured" : "modeled"},
          {"space", r.space.to_json()},
          {"trials", trials}};
}

} // namespace memtune::cli
