#include <memtune/isolate/isolation_options.hpp>

#include <algorithm>
#include <limits>

namespace memtune {

double candidate_time_limit(const WatchdogYardsticks& y, const MeasureOptions& m, const WatchdogLimits& limits) {
  double yardstick = std::numeric_limits<double>::infinity();
  for (const auto& known : {y.best_s, y.reference_s, y.copy_s})
    if (known && *known > 0) yardstick = std::min(yardstick, *known);
  const double room = std::max(0.0, limits.cap_s - limits.floor_s); // what the GPU part may add to the floor
  const double launches = m.warmup + 2.0 + m.max_samples;
  const double gpu = yardstick == std::numeric_limits<double>::infinity()
                         ? room
                         : std::min(room, limits.multiple * yardstick * launches);
  // Energy's batches last a fixed time whatever the kernel's speed.
  return limits.floor_s + std::max(0.0, y.host_work_s) + gpu + energy_time_allowance(m.energy);
}

} // namespace memtune
