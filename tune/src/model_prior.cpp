#include <memtune/tune/model_prior.hpp>

#include "bounded_grid.hpp"

#include <memtune/tune/model_evaluator.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <stdexcept>

namespace memtune {
namespace {

// What makes two configurations one compiled kernel: the instantiation and
// the compile options (defines from the problem among them).
std::string build_of(const KernelDescription& kernel, const Problem& problem, const Target& target,
                     const search::Config& config) {
  const CompileRequest r = kernel.compile_request(kernel.launch(config, problem, target), target.compute_capability());
  std::string key = r.name_expression;
  for (const std::string& option : r.options) key += "\n" + option;
  return key;
}

// The source's compiled resources by build (TransferSource::compiled), for
// configurations valid at the source's problem.
std::map<std::string, KernelResources> builds_of(const KernelDescription& kernel, const TransferSource& source,
                                                 const Target& target, const search::Space& source_space) {
  std::map<std::string, KernelResources> builds;
  for (const auto& [saved, resources] : source.compiled)
    if (const auto c = source_space.valid_saved_config(saved)) {
      try {
        builds.emplace(build_of(kernel, *source.problem, target, *c), resources);
      } catch (const std::exception&) {
        // A configuration the description cannot launch there: no build to share.
      }
    }
  return builds;
}

// The estimate of every config of `space` on `target` (bounded_grid.hpp):
// nothing compiled; without a register limit, except for a config whose
// build is in `builds` (a run compiled it), which takes ptxas' figures, so
// registers limit its occupancy as they will. Only those with a finite
// positive time.
std::vector<Evaluation> estimates(const KernelDescription& kernel, const Problem& problem, const Target& target,
                                  const search::Space& space, const std::map<std::string, KernelResources>& builds = {}) {
  if (!kernel.has_model())
    throw std::invalid_argument(kernel.name + " has no model (no access pattern), so the model cannot be a prior");
  const std::uint64_t bytes = kernel.bytes_moved(problem);
  std::vector<Evaluation> out;
  for (Evaluation& e : predict_each(space.enumerate(), [&](const search::Config& c) {
         KernelResources known; // none: model_estimate's no-register estimate
         if (!builds.empty()) {
           try {
             if (const auto it = builds.find(build_of(kernel, problem, target, c)); it != builds.end()) known = it->second;
           } catch (const std::exception&) {
             // Not launchable here: the prediction says so.
           }
         }
         return predict_with_resources(kernel, problem, target, c, known, bytes);
       }))
    if (e.ok() && e.timing && e.timing->median_s > 0.0 && std::isfinite(e.timing->median_s)) out.push_back(std::move(e));
  return out;
}

// log(time) by config, the slowest for a config it lacks.
std::function<double(const search::Config&)> log_prior(const std::map<search::Config, double>& seconds,
                                                       const std::string& what) {
  if (seconds.empty()) throw std::runtime_error(what);
  auto logs = std::make_shared<std::map<search::Config, double>>();
  double slowest = -std::numeric_limits<double>::infinity();
  for (const auto& [c, s] : seconds) {
    logs->emplace(c, std::log(s));
    slowest = std::max(slowest, std::log(s));
  }
  return [logs, slowest](const search::Config& c) {
    const auto it = logs->find(c);
    return it == logs->end() ? slowest : it->second;
  };
}

} // namespace

std::function<double(const search::Config&)> model_prior(const KernelDescription& kernel, const Problem& problem,
                                                          const Target& target, const search::Space& space) {
  if (space.cross_product_size() <= search::Space::kEnumerateLimit) {
    std::map<search::Config, double> seconds;
    for (const Evaluation& e : estimates(kernel, problem, target, space)) seconds.emplace(e.config, e.timing->median_s);
    return log_prior(seconds, "model prior: the model predicts no config of " + kernel.name + " on " + target.name);
  }
  // Too many to list: predict each config when the search asks (it asks only
  // for the candidates it scores), in constant memory. The slowest prediction,
  // for configs the model fits no block of, comes from an evenly spread sample
  // of the grid (the golden-ratio Weyl sequence: the same every run).
  if (!kernel.has_model())
    throw std::invalid_argument(kernel.name + " has no model (no access pattern), so the model cannot be a prior");
  const std::uint64_t bytes = kernel.bytes_moved(problem);
  auto predict = [&kernel, problem, target, bytes](const search::Config& c) -> std::optional<double> {
    const Evaluation e = model_estimate(kernel, problem, target, c, bytes);
    if (e.ok() && e.timing && e.timing->median_s > 0.0 && std::isfinite(e.timing->median_s))
      return std::log(e.timing->median_s);
    return std::nullopt;
  };
  // 512: a description's model may take milliseconds per prediction (its
  // expressions are interpreted per thread), and this runs before the first proposal.
  constexpr std::size_t kSamples = 512;
  constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  const std::size_t n = space.cross_product_size();
  double slowest = -std::numeric_limits<double>::infinity();
  search::Config point;
  for (std::size_t k = 0; k < kSamples; ++k) {
    const std::uint64_t u = kGolden * (k + 1);
    space.at_index(static_cast<std::size_t>((static_cast<unsigned __int128>(u) * n) >> 64), point);
    if (!space.admits(point)) continue;
    if (const auto t = predict(point)) slowest = std::max(slowest, *t);
  }
  if (!std::isfinite(slowest))
    throw std::runtime_error("model prior: the model predicts none of " + std::to_string(kSamples) +
                             " configs sampled from " + kernel.name + "'s space on " + target.name);
  return [predict, slowest](const search::Config& c) { return predict(c).value_or(slowest); };
}

std::function<double(const search::Config&)> transfer_prior(const KernelDescription& kernel, const Problem& problem,
                                                             const Target& target, const TransferSource& source,
                                                             const search::Space& space) {
  if (source.problem) {
    // Another size on this GPU: the model's ratio is between the two
    // problems, so both sides are modeled on `target`.
    TransferSource same_gpu = source;
    same_gpu.target = target;
    if (!kernel.has_model()) {
      // No model to scale by: the other size's ranking, at this size's bytes.
      Transferred t = transfer_by_bandwidth(same_gpu, target, space, space.enumerate());
      const double scale = static_cast<double>(kernel.bytes_moved(problem)) /
                           static_cast<double>(std::max<std::uint64_t>(1, kernel.bytes_moved(*source.problem)));
      for (auto& [c, s] : t.seconds) s *= scale;
      return log_prior(t.seconds, "warm start: " + source.describe() + " measured no configuration of " + kernel.name +
                                      "'s space here");
    }
    const search::Space source_space = kernel.space(*source.problem, target);
    // Registers where the size done compiled the same kernel: the model's
    // ratio between the sizes then sees the occupancy each will have (the
    // fdtd ring's z-chunk count that fills the last wave at this size is a
    // launch axis of a kernel the size done compiled).
    const auto builds = builds_of(kernel, source, target, source_space);
    return log_prior(transfer_predictions(same_gpu, target, space, estimates(kernel, problem, target, space, builds),
                                          source_space, estimates(kernel, *source.problem, target, source_space, builds))
                         .seconds,
                     "warm start: the model predicts no config of " + kernel.name + " on " + target.name);
  }
  if (!kernel.has_model())
    return log_prior(transfer_by_bandwidth(source, target, space, space.enumerate()).seconds,
                     "transfer prior: " + source.describe() + " measured no configuration of " + kernel.name +
                         "'s space on " + target.name);
  const search::Space source_space = kernel.space(problem, source.target);
  return log_prior(transfer_predictions(source, target, space, estimates(kernel, problem, target, space), source_space,
                                        estimates(kernel, problem, source.target, source_space))
                       .seconds,
                   "transfer prior: the model predicts no config of " + kernel.name + " on " + target.name);
}

} // namespace memtune
