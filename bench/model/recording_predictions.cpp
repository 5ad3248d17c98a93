#include "recording_predictions.hpp"

#include <memtune/probe/prior.hpp>
#include <memtune/templates/catalogue.hpp>
#include <memtune/tuner.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace memtune::bench {
namespace {

// Average ranks (ties share the mean rank), as Spearman's rho needs.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < idx.size();) {
    std::size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) r[idx[k]] = (static_cast<double>(i + j) / 2.0) + 1.0;
    i = j + 1;
  }
  return r;
}

double pearson(const std::vector<double>& a, const std::vector<double>& b) {
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(a.begin(), a.end(), 0.0) / n, mb = std::accumulate(b.begin(), b.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", s);
  return buf;
}

} // namespace

double spearman(const std::vector<double>& a, const std::vector<double>& b) { return pearson(ranks(a), ranks(b)); }

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

Predictions predict_recording(const search::Recording& rec, const Problem& problem, const Target& target) {
  Predictions p;
  if (auto prior = probe::probe_prior(rec.template_name, problem, target)) {
    for (const auto& t : rec.trials) {
      const std::string key = rec.space.config_to_json(t.config).dump();
      p.seconds[key] = std::exp((*prior)(t.config));
      p.bound[key] = "";
      p.facts[key] = ",,,,,,,,,,,,,,";
    }
    return p;
  }
  const KernelTemplate& kernel = templates::find(rec.template_name);
  TuneOptions options;
  options.exact_top = 0; // predict every configuration, not just the model's top k
  const TuningResult predicted = tune_modeled(kernel, problem, target, options);
  for (const auto& e : predicted.evaluations) {
    if (!e.ok()) continue;
    const std::string key = predicted.space.config_to_json(e.config).dump();
    p.seconds[key] = e.timing->median_s;
    p.bound[key] = e.model ? model::to_string(e.model->time.binding) : "";
    std::string f = std::to_string(e.resources.registers) + "," +
                    std::to_string(e.resources.spill_store_bytes + e.resources.spill_load_bytes) + "," +
                    std::to_string(e.occupancy.warps_per_sm) + "," + std::to_string(e.occupancy.blocks_per_sm);
    if (e.model)
      for (const auto& b : e.model->time.bounds) f += "," + seconds_text(b.modelled ? b.seconds : 0.0);
    f += "," + (e.model ? std::to_string(e.model->overlap_units_per_sm) : std::string());
    if (e.model)
      f += "," + seconds_text(e.model->dram_bytes) + "," + seconds_text(e.model->time.bytes_in_flight_per_sm) + "," +
           seconds_text(e.model->time.latency_bound_gbs) + "," + seconds_text(e.model->time.exposed_seconds);
    else
      f += ",,,,";
    p.facts[key] = f;
  }
  return p;
}

std::vector<std::pair<std::string, double>> measured_in_order(const search::Recording& rec) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& t : rec.trials)
    if (t.ok()) out.emplace_back(rec.space.config_to_json(t.config).dump(), *t.time_s);
  return out;
}

Score score(const std::vector<std::pair<std::string, double>>& measured,
            const std::map<std::string, double>& predicted) {
  Score s;
  std::vector<double> m, p;
  s.best_measured_s = INFINITY;
  s.pick_predicted_s = INFINITY;
  for (const auto& [config, t] : measured) {
    const auto it = predicted.find(config);
    if (it == predicted.end()) continue;
    m.push_back(t);
    p.push_back(it->second);
    s.best_measured_s = std::min(s.best_measured_s, t);
    if (it->second < s.pick_predicted_s) {
      s.pick_predicted_s = it->second;
      s.pick_measured_s = t;
    }
  }
  if (m.size() < 3) throw std::runtime_error("fewer than 3 configurations both measured and predicted");
  s.configs = m.size();
  s.spearman = spearman(m, p);
  return s;
}

} // namespace memtune::bench
