#pragma once
// What a template's geometry (its *_geometry.hpp, for the model) reads: the
// description's own values for one configuration (problem variables, device
// attributes, parameters and derived values), so the arithmetic the launch
// uses is written once, in the description.
#include <memtune/description/kernel_description.hpp>

#include <cstdint>
#include <initializer_list>
#include <utility>

namespace memtune::templates {

// `absent`: the value an axis means where a configuration does not have it.
// Recordings made before an axis existed ran the kernel that value names
// (fdtd's classic scheme before the ring), and the model still replays them.
inline search::Config geometry_environment(const KernelDescription& description, search::Config config,
                                           const Problem& problem, const Target& target,
                                           std::initializer_list<std::pair<const char*, std::int64_t>> absent = {}) {
  for (const auto& [axis, value] : absent)
    if (!config.has(axis)) config.set(axis, value);
  return description.environment(config, problem, target);
}

} // namespace memtune::templates
