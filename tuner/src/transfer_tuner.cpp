#include <memtune/transfer.hpp>

#include <memtune/targets.hpp>

#include <chrono>
#include <cstdio>

namespace memtune {

TuningResult tune_transferred(const KernelDescription& kernel, const Problem& given, const Target& target,
                              const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (!kernel.has_model())
    throw TransferError(kernel.name + " has no access pattern: the model cannot scale its times from one GPU to "
                        "another, so --from cannot predict it");
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
  each.on_evaluation = nullptr;
  const TuningResult modeled_source = tune_modeled(kernel, problem, source.target, each);

  const Transferred t = transfer_predictions(source, target, result.space, result.evaluations,
                                             modeled_source.space, modeled_source.evaluations);

  for (auto& e : result.evaluations) {
    const auto it = t.seconds.find(e.config);
    if (it == t.seconds.end() || !e.timing) continue;
    e.timing->median_s = e.timing->min_s = e.timing->max_s = it->second;
    e.gbps = static_cast<double>(result.bytes_moved) / it->second / 1e9;
    e.fraction_of_peak = target.dram_bandwidth_gbs > 0 ? e.gbps / target.dram_bandwidth_gbs : 0.0;
  }
  result.transferred_from = source.describe() + ", modeled as catalogue target \"" + source.target.name + "\"";
  if (t.model_only > 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "; %zu configuration%s not measured there: the model's time x %.3g (the source's median "
                  "measured / modeled)",
                  t.model_only, t.model_only == 1 ? "" : "s", t.median_ratio);
    result.transferred_from += buf;
  }
  result.strategy = "grid (transferred)";
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

} // namespace memtune
