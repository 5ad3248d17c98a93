#pragma once
// Cross-GPU transfer: a target's times predicted from a run measured on
// another GPU. Each configuration's measured time is scaled by the model's
// ratio between the two GPUs for that configuration:
//
//   t_target(c) = t_measured(c) x model_target(c) / model_source(c)
//
// The model only has to be right about how each configuration changes from
// one GPU to the other, not about its absolute time or its rank against the
// others; what the model gets wrong on both GPUs alike cancels. A
// configuration the source did not measure gets the model's target time
// scaled by the median measured / modeled ratio of the source (the model,
// calibrated on the source), and is counted as such.
//
//   TransferSource s = load_transfer_source("bench/data/h100_filter_16M.json", filter, problem, catalog);
//   s.device_name == "NVIDIA H100 80GB HBM3"; s.target.name == "h100-sxm"
#include <memtune/description/kernel_description.hpp>
#include <memtune/model/target_catalog.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/search/space.hpp>
#include <memtune/model/target.hpp>
#include <memtune/tune/tuner.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>
#include <optional>
#include <stdexcept>
#include <string>

namespace memtune {

// A source that cannot be used: another template or problem, no measured
// configuration, a GPU the catalogue does not know. The message names the file.
class TransferError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct TransferSource {
  std::filesystem::path file;
  std::string kind;        // "recording" or "profile store"
  std::string device_name; // as measured: "NVIDIA H100 80GB HBM3"
  Target target;           // the catalogue entry of that GPU
  // Every configuration measured successfully, as the source's JSON
  // (Space::config_to_json), with its time [s].
  std::vector<std::pair<nlohmann::json, double>> trials;
  std::vector<std::string> axes; // the source's axis names, sorted
  // The copy ceiling measured beside the source's trials [GB/s] (a
  // recording's copy_ceiling_gbps); 0 when the source does not say (a profile store).
  double copy_ceiling_gbps = 0;
  // The problem the source measured, where it is not the target's (a sweep's
  // earlier size, sweep_source): the model's ratio is then taken between the
  // two problems on the same GPU. nullopt: the target's problem.
  std::optional<Problem> problem;
  // Where `problem` is set: every configuration the run compiled, as JSON,
  // with ptxas' figures. Another configuration built from the same kernel
  // instantiation (it differs only in launch axes, such as the fdtd's z-chunk
  // count) has the same ones, so the warm start models both with registers.
  std::vector<std::pair<nlohmann::json, KernelResources>> compiled;

  // The measured time of a configuration of `space` (the target's space):
  // compared on the axes both spaces have (an axis only the target has, such
  // as Kepler's bank mode, is ignored; one only the source has takes its
  // fastest value). nullopt when the source did not measure it.
  [[nodiscard]] std::optional<double> measured(const search::Space& space, const search::Config& config) const;
  // "h100_filter_16M.json (recording): NVIDIA H100 80GB HBM3, 288 configurations measured"
  [[nodiscard]] std::string describe() const;

private:
  // Fastest time by key, for each set of shared axes asked so far.
  mutable std::map<std::vector<std::string>, std::map<std::string, double>> index_;
};

// Reads a recording (memtune ... --record) or a profile store (--save; the
// best configuration and its runner-ups). Keeps only what was measured for
// `kernel` and `problem`. Throws TransferError.
[[nodiscard]] TransferSource load_transfer_source(const std::filesystem::path& file, const KernelDescription& kernel,
                                                  const Problem& problem, const model::TargetCatalog& catalog);

// A finished run as a source for another problem size on the same GPU (a
// sweep's warm start): its successful trials, measured or modeled, with
// `problem` set to the run's, and the resources of all it compiled. Throws
// TransferError when it has no successful trial.
//
//   TransferSource s = sweep_source(result_at_1M, "n=1048576");
//   options.warm_start = std::make_shared<const TransferSource>(s); // the next size's prior
[[nodiscard]] TransferSource sweep_source(const TuningResult& done, const std::string& label);

// The configuration of `to` that is `config` of `from`: the same value on
// every axis of `to` (an axis only `from` has, such as Kepler's bank mode, is
// dropped). nullopt when `to` has an axis `from` lacks, or the result is not
// valid in `to`.
[[nodiscard]] std::optional<search::Config> corresponding_config(const search::Space& from,
                                                                 const search::Config& config,
                                                                 const search::Space& to);

// The transferred time [s] of every configuration `target_model` and
// `source_model` both predict, from their predicted times by configuration
// (the same keys): measured configurations are scaled per configuration, the
// others by the source's median measured / modeled ratio. `model_only` counts
// the latter.
struct Transferred {
  std::map<search::Config, double> seconds;
  std::size_t model_only = 0;
  double median_ratio = 1; // the source's measured / modeled, over the configurations it measured
                           // (transfer_by_bandwidth: its one ratio, the peak bandwidths')
};
[[nodiscard]] Transferred transfer_times(const TransferSource& source, const search::Space& space,
                                         const std::map<search::Config, double>& target_model,
                                         const std::map<search::Config, double>& source_model);

// The memory floor measured on the source, carried to the target: the
// source's DRAM busy time for configuration c is its DRAM bytes (the model's)
// at the copy ceiling measured there, at most its measured time; on the
// target that busy time scales with the peak bandwidths. The ratio transfer
// C = t_measured x model_target / model_source can fall below that floor M
// where the model misjudges what bounds c (the H200 row-major mat-vec with
// 4 threads a row: measured at 93 % of the H200's copy ceiling, which the
// model takes for latency-bound alike on both GPUs, ratio 1.0), so the two
// combine as the time model combines memory and compute,
//   t = max(M, C) + min(M, C) / k,   k = the target's overlap units per SM
// (imperfect overlap, time_model.hpp). Without a measured ceiling
// (copy_ceiling_gbps 0) or a configuration's DRAM bytes, times are unchanged.
struct MemoryFloorInputs {
  std::map<search::Config, double> dram_bytes;    // the source model's DRAM bytes by (target) configuration
  std::map<search::Config, double> overlap_units; // the target model's k by configuration
  double source_peak_gbs = 0, target_peak_gbs = 0;
};
void apply_memory_floor(Transferred& transferred, const TransferSource& source, const search::Space& space,
                        const MemoryFloorInputs& inputs);

// The transferred prediction, from the model's evaluations of both GPUs: the
// ratio transfer (transfer_times) with the source's measured memory floor
// (apply_memory_floor). `target_model` evaluates configurations of `space`
// on `target`, `source_model` configurations of `source_space` on
// source.target (matched by corresponding_config); a failed evaluation or
// one without a time is skipped. The one path from modeled times to
// transferred ones: `--target X --from` (tune_transferred, registers
// compiled) and the bayes warm start (transfer_prior, no registers) both
// take it, so the prior is the same prediction.
[[nodiscard]] Transferred transfer_predictions(const TransferSource& source, const Target& target,
                                               const search::Space& space,
                                               const std::vector<Evaluation>& target_model,
                                               const search::Space& source_space,
                                               const std::vector<Evaluation>& source_model);

// A kernel without an access pattern (a JSON description) has no model to
// scale each configuration by: every measured time is scaled by one ratio,
// the GPUs' peak DRAM bandwidths (source / target), as for a kernel bound by
// DRAM on both. The prediction is the source's ranking at the target's
// speed; of `configs` (those that fit the target), one the source did not
// measure gets no time. Throws TransferError when the catalogue gives either
// GPU no peak bandwidth.
[[nodiscard]] Transferred transfer_by_bandwidth(const TransferSource& source, const Target& target,
                                                const search::Space& space, const std::vector<search::Config>& configs);

// Predicts every configuration of `kernel`'s space on `target` from
// options.transfer_from (a recording or profile store of another GPU): both
// GPUs are modeled over the whole space (every candidate compiled for its
// registers) and each measured time is scaled by the ratio (transfer_times);
// a kernel without an access pattern is compiled for the target (what fits
// it) and scaled by transfer_by_bandwidth. The result is a modeled one whose
// transferred_from names the source and transfer_scaling how it was scaled.
// Throws TransferError for an unusable source.
TuningResult tune_transferred(const KernelDescription& kernel, const Problem& problem, const Target& target,
                              const TuneOptions& options);

} // namespace memtune
