#include <memtune/tune/transfer.hpp>

#include <memtune/measure/target_resolver.hpp>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace memtune {

namespace {

// The transferred times into the result's evaluations (the rest keep none).
void set_times(TuningResult& result, const std::map<search::Config, double>& seconds, const Target& target) {
  for (Evaluation& e : result.evaluations) {
    const auto it = seconds.find(e.config);
    if (it == seconds.end()) continue;
    if (!e.timing) e.timing.emplace();
    e.timing->median_s = e.timing->min_s = e.timing->max_s = it->second;
    e.gbps = static_cast<double>(result.bytes_moved) / it->second / 1e9;
    e.fraction_of_peak = target.dram_bandwidth_gbs > 0 ? e.gbps / target.dram_bandwidth_gbs : 0.0;
  }
}

// A kernel without an access pattern: its candidates compiled for the target
// (registers, occupancy, what fits), the source's times scaled by one ratio.
void scale_by_bandwidth(TuningResult& result, const TransferSource& source, const Target& target,
                        const std::string& kernel_name) {
  std::vector<search::Config> fits;
  for (const Evaluation& e : result.evaluations)
    if (e.ok()) fits.push_back(e.config);
  const Transferred t = transfer_by_bandwidth(source, target, result.space, fits);
  set_times(result, t.seconds, target);
  result.time_modeled = true;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "all scaled by one ratio, the peak DRAM bandwidths' (%.0f / %.0f GB/s = %.3g): %s has no access "
                "pattern, so the ranking is the source's; %zu of the %zu configurations that fit the target were "
                "not measured there and are not ranked",
                source.target.dram_bandwidth_gbs, target.dram_bandwidth_gbs, t.median_ratio, kernel_name.c_str(),
                fits.size() - t.seconds.size(), fits.size());
  result.transfer_scaling = buf;
}

} // namespace

TuningResult tune_transferred(const KernelDescription& kernel, const Problem& given, const Target& target,
                              const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Problem problem = kernel.complete(given);
  const TransferSource source = load_transfer_source(*options.transfer_from, kernel, problem, load_targets());

  // Both GPUs over the whole space: the transfer needs every configuration's
  // ratio, not the model's top k.
  TuneOptions each = options;
  each.transfer_from.reset();
  each.strategy = "grid";
  each.budget = 0;
  each.time_budget_s = 0;
  each.patience = 0;
  each.exact_top = 0;
  TuningResult result = tune_modeled(kernel, problem, target, each);
  result.transferred_from = source.describe();
  result.strategy = "grid (transferred)";
  if (!kernel.has_model()) {
    scale_by_bandwidth(result, source, target, kernel.name);
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }
  each.on_evaluation = nullptr;
  const TuningResult modeled_source = tune_modeled(kernel, problem, source.target, each);

  const Transferred t = transfer_predictions(source, target, result.space, result.evaluations,
                                             modeled_source.space, modeled_source.evaluations);

  set_times(result, t.seconds, target);
  result.transferred_from += ", modeled as catalogue target \"" + source.target.name + "\"";
  result.transfer_scaling = "each scaled by the model's ratio between the two GPUs for that configuration";
  if (t.model_only > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "; %zu configuration%s not measured there: the model's time x %.3g (the source's median "
                  "measured / modeled)",
                  t.model_only, t.model_only == 1 ? "" : "s", t.median_ratio);
    result.transferred_from += buf;
  }
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace memtune
