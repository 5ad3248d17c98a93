#include "recording_predictions.hpp"

#include <memtune/io/number_text.hpp>
#include <memtune/probe/prior.hpp>
#include <memtune/model/rank_correlation.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tune/transfer.hpp>
#include <memtune/tune/tuner.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace memtune::bench {
namespace {

// A figure in a CSV column, six significant digits.
std::string csv_number(double v) { return number_text("%.6g", v); }

} // namespace

std::map<std::string, double> times_by_config(const search::Recording& rec) {
  std::map<std::string, double> times;
  for (const auto& t : rec.trials)
    if (t.ok()) times[rec.space.config_to_json(t.config).dump()] = *t.time_s;
  return times;
}

std::map<std::string, double> times_by_config(const TuningResult& result) {
  std::map<std::string, double> times;
  for (const auto& e : result.evaluations)
    if (e.ok() && e.timing) times[result.space.config_to_json(e.config).dump()] = e.timing->median_s;
  return times;
}

std::map<std::string, std::size_t> rank_by_config(const TuningResult& result) {
  std::map<std::string, std::size_t> rank;
  const auto order = result.ranking();
  for (std::size_t i = 0; i < order.size(); ++i)
    rank[result.space.config_to_json(result.evaluations[order[i]].config).dump()] = i;
  return rank;
}

Predictions predict_recording(const search::Recording& rec, const Problem& problem, const Target& target) {
  Predictions p;
  p.space = rec.space;
  if (auto prior = probe::probe_prior(rec.template_name, problem, target)) {
    for (const auto& t : rec.trials) {
      const std::string key = rec.space.config_to_json(t.config).dump();
      p.seconds[key] = std::exp((*prior)(t.config));
      p.bound[key] = "";
      p.facts[key] = ",,,,,,,,,,,,,,";
    }
    return p;
  }
  const KernelDescription& kernel = templates::find_description(rec.template_name);
  TuneOptions options;
  options.exact_top = 0; // predict every configuration, not just the model's top k
  const TuningResult predicted = tune_modeled(kernel, problem, target, options);
  p.space = predicted.space;
  p.rank = rank_by_config(predicted);
  for (const auto& e : predicted.evaluations) {
    if (!e.ok()) continue;
    const std::string key = predicted.space.config_to_json(e.config).dump();
    p.seconds[key] = e.timing->median_s;
    p.bound[key] = e.model ? model::to_string(e.model->time.binding) : "";
    std::string f = std::to_string(e.resources.registers) + "," +
                    std::to_string(e.resources.spill_store_bytes + e.resources.spill_load_bytes) + "," +
                    std::to_string(e.occupancy.warps_per_sm) + "," + std::to_string(e.occupancy.blocks_per_sm);
    if (e.model)
      for (const auto& b : e.model->time.bounds) f += "," + csv_number(b.modelled ? b.seconds : 0.0);
    f += "," + (e.model ? std::to_string(e.model->overlap_units_per_sm) : std::string());
    if (e.model)
      f += "," + csv_number(e.model->dram_bytes) + "," + csv_number(e.model->time.bytes_in_flight_per_sm) + "," +
           csv_number(e.model->time.latency_bound_gbs) + "," + csv_number(e.model->time.exposed_seconds);
    else
      f += ",,,,";
    p.facts[key] = f;
  }
  return p;
}

std::optional<std::string> key_in(const search::Space& space, const search::Recording& rec, const search::Config& config) {
  const auto mapped = corresponding_config(rec.space, config, space); // the transfer's mapping between spaces
  if (!mapped) return std::nullopt;
  return space.config_to_json(*mapped).dump();
}

std::vector<std::pair<std::string, double>> measured_in_order(const search::Recording& rec, const search::Space& space) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& t : rec.trials)
    if (t.ok())
      if (const auto key = key_in(space, rec, t.config)) out.emplace_back(*key, *t.time_s);
  return out;
}

Score score(const std::vector<std::pair<std::string, double>>& measured,
            const std::map<std::string, double>& predicted, const std::map<std::string, std::size_t>& rank) {
  Score s;
  std::vector<double> m, p;
  s.best_measured_s = INFINITY;
  s.pick_predicted_s = INFINITY;
  std::size_t pick_rank = SIZE_MAX;
  for (const auto& [config, t] : measured) {
    const auto it = predicted.find(config);
    if (it == predicted.end()) continue;
    m.push_back(t);
    p.push_back(it->second);
    s.best_measured_s = std::min(s.best_measured_s, t);
    const auto r = rank.find(config);
    const bool ranks_first = rank.empty() ? it->second < s.pick_predicted_s : r != rank.end() && r->second < pick_rank;
    if (ranks_first) {
      if (!rank.empty()) pick_rank = r->second;
      s.pick_predicted_s = it->second;
      s.pick_measured_s = t;
    }
  }
  if (m.size() < 3) throw std::runtime_error("fewer than 3 configurations both measured and predicted");
  s.configs = m.size();
  s.spearman = memtune::spearman(m, p);
  s.beyond_noise = ordered_pairs(m, p, noise_gap);
  return s;
}

} // namespace memtune::bench
