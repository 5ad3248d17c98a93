#include <memtune/output/tuning_recording.hpp>

#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/io/version.hpp>

#include <nlohmann/json.hpp>

namespace memtune {

nlohmann::json trial_facts(const Evaluation& e) {
  nlohmann::json facts = nlohmann::json::object();
  if (e.resources.registers > 0) facts["resources"] = kernel_resources_to_json(e.resources); // 0: not compiled
  if (e.ok()) add_energy_json(facts, e);
  if (e.device >= 0) facts["device"] = e.device; // the GPU it ran on
  return facts;
}

search::Recording to_recording(const TuningResult& r) {
  search::Recording rec;
  rec.tool = std::string("memtune ") + kVersion;
  rec.template_name = r.template_name;
  rec.problem = r.problem;
  rec.device = r.device.to_json();
  rec.kernel_fingerprint = r.kernel_fingerprint;
  rec.mode = r.measured ? "measured" : "modeled";
  // What a report shows next to the trials (readers that do not know them ignore them).
  rec.annotations = {{"target", r.target_name},
                     {"strategy", r.strategy},
                     {"wall_seconds", r.wall_seconds},
                     {"bytes_moved", r.bytes_moved}};
  if (r.peak_dram_gbs > 0) rec.annotations["peak_dram_gbps"] = r.peak_dram_gbs;
  if (r.ceiling) rec.annotations["copy_ceiling_gbps"] = r.ceiling->gbps;
  if (!r.stop_reason.empty()) rec.annotations["stop_reason"] = r.stop_reason;
  rec.space = r.space;
  for (const Evaluation& e : r.evaluations) {
    search::Trial t{e.config, std::nullopt, to_string(e.status), e.reason};
    if (e.ok()) {
      if (e.timing) t.time_s = e.timing->median_s;
      else {
        t.status = "not_modeled";
        t.reason = "compiled and fits the GPU; its time is not modeled (the description has no \"model\" section)";
      }
    }
    rec.trials.push_back(std::move(t));
    rec.trial_annotations.push_back(trial_facts(e));
  }
  return rec;
}

} // namespace memtune
