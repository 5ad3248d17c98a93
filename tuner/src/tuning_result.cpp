#include <memtune/tuning_result.hpp>
#include <memtune/version.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

namespace memtune {

std::vector<std::size_t> TuningResult::ranking() const {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < evaluations.size(); ++i)
    if (evaluations[i].ok() && evaluations[i].timing) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return evaluations[a].timing->median_s < evaluations[b].timing->median_s;
  });
  return idx;
}

const Evaluation* TuningResult::best() const {
  const auto r = ranking();
  return r.empty() ? nullptr : &evaluations[r.front()];
}

std::vector<std::pair<Status, int>> TuningResult::failure_counts() const {
  std::map<Status, int> counts;
  for (const auto& e : evaluations)
    if (!e.ok()) ++counts[e.status];
  return {counts.begin(), counts.end()};
}

namespace {
std::string limiter_words(const model::Occupancy& o) {
  std::string s;
  for (model::Limiter l : o.limiters) s += (s.empty() ? "" : ", ") + std::string(model::to_string(l));
  return s;
}
std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
} // namespace

std::string describe_baseline(const TuningResult& r, const BaselineResult& b) {
  const std::string who = b.description.empty() ? b.name : b.description;
  if (!b.available) return who + ": not run: " + b.message;
  if (!b.verified || !b.timing) return who + ": " + (b.message.empty() ? std::string("failed") : b.message);
  std::string s = who + ": " + fmt("%.1f us", b.timing->median_s * 1e6) + " (" + fmt("%.0f GB/s", b.gbps);
  if (r.measured && r.ceiling && r.ceiling->gbps > 0) s += ", " + fmt("%.1f%%", 100.0 * b.gbps / r.ceiling->gbps) + " of the copy ceiling";
  s += ")";
  if (const Evaluation* best = r.best()) {
    const double ratio = b.timing->median_s / best->timing->median_s;
    s += "; best/" + b.name + " = " + fmt("%.2fx", ratio) + (ratio >= 1.0 ? " faster" : " (slower)");
  }
  return s;
}

nlohmann::json evaluation_to_json(const search::Space& space, const Evaluation& e) {
  nlohmann::json j{{"config", space.config_to_json(e.config)}, {"status", to_string(e.status)}};
  if (!e.reason.empty()) j["reason"] = e.reason;
  if (e.status != Status::compile_failed) {
    j["registers"] = e.resources.registers;
    j["static_smem_bytes"] = e.resources.static_smem_bytes;
    j["dynamic_smem_bytes"] = e.dynamic_smem_bytes;
    j["spill_bytes"] = e.resources.spill_store_bytes + e.resources.spill_load_bytes;
  }
  if (e.occupancy.max_warps_per_sm) {
    j["occupancy"] = {{"blocks_per_sm", e.occupancy.blocks_per_sm},
                      {"warps_per_sm", e.occupancy.warps_per_sm},
                      {"max_warps_per_sm", e.occupancy.max_warps_per_sm},
                      {"limiter", limiter_words(e.occupancy)}};
    if (e.driver_blocks_per_sm >= 0) j["occupancy"]["driver_blocks_per_sm"] = e.driver_blocks_per_sm;
  }
  if (e.model) {
    j["model"] = {{"compiled_for", "sm_" + std::to_string(e.model->compiled_for_cc)},
                  {"smem_wavefronts", e.model->smem_wavefronts},
                  {"smem_ideal_wavefronts", e.model->smem_ideal_wavefronts},
                  {"worst_conflict_ways", e.model->worst_conflict_ways},
                  {"sector_efficiency", e.model->sector_efficiency()},
                  {"dram_bytes", e.model->dram_bytes},
                  {"predicted_s", e.model->time.seconds},
                  {"bound", model::to_string(e.model->time.binding)},
                  {"bytes_in_flight_per_sm", e.model->time.bytes_in_flight_per_sm}};
  }
  if (e.timing) {
    j["time_s"] = e.timing->median_s;
    j["fraction_of_peak"] = e.fraction_of_peak;
    j["spread"] = e.timing->spread;
    j["samples"] = e.timing->samples;
    j["gbps"] = e.gbps;
    j["fraction_of_ceiling"] = e.fraction_of_ceiling;
    j["max_abs_error"] = e.max_abs_error;
  }
  return j;
}

nlohmann::json to_json(const TuningResult& r, std::size_t top) {
  nlohmann::json j{{"schema_version", kSchemaVersion},
                   {"tool", std::string("memtune ") + kVersion},
                   {"template", r.template_name},
                   {"kernel_fingerprint", r.kernel_fingerprint},
                   {"problem", r.problem},
                   {"device", r.device.to_json()},
                   {"target", r.target_name},
                   {"mode", r.measured ? "measured" : "modeled"},
                   {"time_modeled", r.measured || r.time_modeled},
                   {"compiled_for", "sm_" + std::to_string(r.compiled_for_cc)},
                   {"peak_dram_gbps", r.peak_dram_gbs},
                   {"strategy", r.strategy},
                   {"search_prior", r.search_prior},
                   {"space", r.space.to_json()},
                   {"bytes_moved", r.bytes_moved},
                   {"wall_seconds", r.wall_seconds},
                   {"evaluated", r.evaluations.size()},
                   {"pruned_by_constraints", r.configs_pruned},
                   {"compile_cache_hits", r.compile_cache_hits}};
  if (r.ceiling) {
    j["copy_ceiling"] = {{"gbps", r.ceiling->gbps},
                         {"bytes", r.ceiling->bytes},
                         {"time_s", r.ceiling->timing.median_s},
                         {"cold", r.ceiling->timing.cold}};
  }
  if (r.exact_top) {
    j["model_bound"] = {{"exact_top", r.exact_top},
                        {"not_compiled", r.configs_not_compiled},
                        {"bound_violated", r.bound_violated}};
  }
  if (r.measured) j["isolation"] = {{"where", r.isolation}, {"worker_restarts", r.worker_restarts}};
  if (!r.journal.empty()) j["journal"] = {{"note", r.journal}, {"resumed", r.resumed}};
  if (!r.stop_reason.empty()) j["stop_reason"] = r.stop_reason;
  if (!r.aborted.empty()) j["aborted"] = r.aborted;
  const auto rank = r.ranking();
  nlohmann::json ranked = nlohmann::json::array();
  for (std::size_t i = 0; i < rank.size() && i < top; ++i)
    ranked.push_back(evaluation_to_json(r.space, r.evaluations[rank[i]]));
  j["ranked"] = ranked;
  if (const Evaluation* b = r.best()) {
    j["best"] = evaluation_to_json(r.space, *b);
    j["rationale"] = rationale(r);
    nlohmann::json why = nlohmann::json::array();
    const auto order = r.ranking();
    for (std::size_t i = 0; i < order.size() && i < std::min<std::size_t>(top, 5); ++i)
      why.push_back(describe_candidate(r, r.evaluations[order[i]]));
    j["candidate_facts"] = why;
  }
  if (!r.baselines.empty()) {
    nlohmann::json baselines = nlohmann::json::array();
    const Evaluation* best = r.best();
    for (const auto& b : r.baselines) {
      nlohmann::json jb{{"name", b.name},           {"description", b.description}, {"available", b.available},
                        {"verified", b.verified},   {"summary", describe_baseline(r, b)}};
      if (!b.message.empty()) jb["message"] = b.message;
      if (b.timing) {
        jb["time_s"] = b.timing->median_s;
        jb["spread"] = b.timing->spread;
        jb["samples"] = b.timing->samples;
        jb["gbps"] = b.gbps;
        jb["max_abs_error"] = b.max_abs_error;
        if (best) jb["speedup_of_best"] = b.timing->median_s / best->timing->median_s;
      }
      baselines.push_back(jb);
    }
    j["baselines"] = baselines;
  }
  if (!r.measured && !r.time_modeled) {
    // Nothing is ranked: every compiled candidate's registers and occupancy, in evaluation order.
    nlohmann::json compiled = nlohmann::json::array();
    for (const auto& e : r.evaluations)
      if (e.ok() && compiled.size() < top) compiled.push_back(evaluation_to_json(r.space, e));
    j["compiled"] = compiled;
  }
  nlohmann::json failures = nlohmann::json::array();
  for (const auto& e : r.evaluations)
    if (!e.ok()) failures.push_back(evaluation_to_json(r.space, e));
  j["failures"] = failures;
  return j;
}

} // namespace memtune
