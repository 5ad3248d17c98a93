#include <memtune/model_prior.hpp>

#include "bounded_grid.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>

namespace memtune {

std::function<double(const search::Config&)> model_prior(const KernelDescription& kernel, const Problem& problem,
                                                          const Target& target, const search::Space& space) {
  if (!kernel.has_model())
    throw std::invalid_argument(kernel.name + " has no model (no access pattern), so the model cannot be a prior");
  const std::uint64_t bytes = kernel.bytes_moved(problem);
  auto predicted = std::make_shared<std::map<search::Config, double>>();
  double slowest = -std::numeric_limits<double>::infinity();
  for (const search::Config& c : space.enumerate()) {
    const Evaluation e = model_lower_bound(kernel, problem, target, c, bytes);
    if (!e.timing || !(e.timing->median_s > 0.0) || !std::isfinite(e.timing->median_s)) continue;
    const double log_time = std::log(e.timing->median_s);
    predicted->emplace(c, log_time);
    slowest = std::max(slowest, log_time);
  }
  if (predicted->empty())
    throw std::runtime_error("model prior: the model predicts no config of " + kernel.name + " on " + target.name);
  return [predicted, slowest](const search::Config& c) {
    const auto it = predicted->find(c);
    return it == predicted->end() ? slowest : it->second;
  };
}

} // namespace memtune
