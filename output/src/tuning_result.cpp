#include <memtune/io/number_text.hpp>
#include <memtune/output/tuning_result.hpp>
#include <memtune/output/tuning_recording.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace memtune {

std::vector<std::size_t> TuningResult::ranking() const {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < evaluations.size(); ++i)
    if (evaluations[i].ok() && evaluations[i].timing) idx.push_back(i);
  const Objective by = ranked_by();
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    const Evaluation& ea = evaluations[a];
    const Evaluation& eb = evaluations[b];
    if (by != Objective::time) {
      const auto va = objective_value(ea, by);
      const auto vb = objective_value(eb, by);
      if (va.has_value() != vb.has_value()) return va.has_value();
      if (va && *va != *vb) return *va < *vb;
    }
    if (ea.timing->median_s != eb.timing->median_s) return ea.timing->median_s < eb.timing->median_s;
    // A tie, as a modeled grid has wherever several configurations sit at the
    // same roofline bound (the same bytes at the same DRAM bandwidth): the one
    // with the most headroom on its other resources ranks first. The max of
    // the bounds assumes their overlap is perfect, and it is the less so the
    // closer the runner-up bound comes (H100 fdtd: eight ring configurations
    // tie at 195.6 us on DRAM and measure 193-246 us; the lowest runner-up,
    // 193 us).
    const auto runner_up = [](const Evaluation& e) {
      const model::BoundTime* r = e.model ? e.model->time.runner_up() : nullptr;
      return r ? r->seconds : INFINITY;
    };
    return runner_up(ea) < runner_up(eb);
  });
  return idx;
}

const Evaluation* TuningResult::best() const {
  const auto r = ranking();
  return r.empty() ? nullptr : &evaluations[r.front()];
}

const Evaluation* TuningResult::fastest() const {
  const Evaluation* f = nullptr;
  for (const Evaluation& e : evaluations)
    if (e.ok() && e.timing && (!f || e.timing->median_s < f->timing->median_s)) f = &e;
  return f;
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
} // namespace

std::string describe_baseline(const TuningResult& r, const BaselineResult& b) {
  const std::string who = b.description.empty() ? b.name : b.description;
  if (!b.available) return who + ": not run: " + b.message;
  if (!b.verified || !b.timing) return who + ": " + (b.message.empty() ? std::string("failed") : b.message);
  std::string s = who + ": " + number_text("%.1f us", b.timing->median_s * 1e6) + " (" + number_text("%.0f GB/s", b.gbps);
  if (r.measured && r.ceiling && r.ceiling->gbps > 0) s += ", " + number_text("%.1f%%", 100.0 * b.gbps / r.ceiling->gbps) + " of the copy ceiling";
  s += ")";
  if (const Evaluation* best = r.best()) {
    const double ratio = b.timing->median_s / best->timing->median_s;
    s += "; best/" + b.name + " = " + number_text("%.2fx", ratio) + (ratio >= 1.0 ? " faster" : " (slower)");
  }
  return s;
}

void add_energy_json(nlohmann::json& j, const Evaluation& e) {
  if (e.energy) {
    const EnergyMeasurement& m = *e.energy;
    j["joules_per_launch"] = m.joules_per_launch;
    j["energy_min_j"] = m.min_j;
    j["energy_max_j"] = m.max_j;
    j["energy_spread"] = m.spread;
    j["energy_repeats"] = m.repeats;
    j["mean_watts"] = m.mean_watts;
    j["idle_watts"] = m.idle_watts;
  }
  if (!e.energy_error.empty()) j["energy_error"] = e.energy_error;
}

nlohmann::json evaluation_to_json(const search::Space& space, const Evaluation& e) {
  nlohmann::json j{{"config", space.config_to_json(e.config)}, {"status", to_string(e.status)}};
  if (!e.reason.empty()) j["reason"] = e.reason;
  if (e.device >= 0) j["device"] = e.device;
  if (!e.compiler.empty()) j["compiler"] = e.compiler;
  if (!e.compile_warnings.empty()) j["compile_warnings"] = e.compile_warnings;
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
    // null, not 0, where there is no value: a modeled time has no samples,
    // spread or error, a run without a copy ceiling no fraction of it.
    const bool sampled = e.timing->samples > 0;
    j["time_s"] = e.timing->median_s;
    j["fraction_of_peak"] = e.fraction_of_peak > 0 ? nlohmann::json(e.fraction_of_peak) : nlohmann::json();
    j["spread"] = sampled ? nlohmann::json(e.timing->spread) : nlohmann::json();
    j["samples"] = e.timing->samples;
    j["gbps"] = e.gbps;
    j["fraction_of_ceiling"] = e.fraction_of_ceiling > 0 ? nlohmann::json(e.fraction_of_ceiling) : nlohmann::json();
    if (e.fraction_of_same_size_copy > 0) j["fraction_of_same_size_copy"] = e.fraction_of_same_size_copy;
    j["max_abs_error"] = sampled ? nlohmann::json(e.max_abs_error) : nlohmann::json();
  }
  add_energy_json(j, e);
  return j;
}

nlohmann::json trials_to_json(const TuningResult& r) { return to_recording(r).to_json().at("trials"); }

bool empty_shard(const TuningResult& r) {
  return !r.shard.empty() && r.evaluations.empty() && r.stop_reason.empty() && r.aborted.empty();
}

bool nothing_valid(const TuningResult& r) {
  return r.shard.empty() && r.evaluations.empty() && r.stop_reason.empty() && r.aborted.empty() &&
         r.configs_pruned > 0 && r.configs_pruned == r.space.cross_product_size();
}

void add_copy_fractions(TuningResult& result) {
  if (!result.ceiling) return;
  const CopyCeiling& same = result.same_size_copy ? *result.same_size_copy : *result.ceiling;
  for (Evaluation& e : result.evaluations) {
    if (!e.ok() || !e.timing) continue;
    if (result.ceiling->gbps > 0) e.fraction_of_ceiling = e.gbps / result.ceiling->gbps;
    if (same.gbps > 0) e.fraction_of_same_size_copy = e.gbps / same.gbps;
  }
}

} // namespace memtune
