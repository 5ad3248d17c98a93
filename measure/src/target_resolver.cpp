#include <memtune/cuda/driver_api.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/model/install_layout.hpp>
#include <memtune/measure/target_resolver.hpp>

#include <algorithm>
#include <cctype>

namespace memtune {

std::filesystem::path targets_folder() {
  return model::resolve_targets_dir(data_candidates("targets"));
}

model::TargetCatalog load_targets() { return model::TargetCatalog::load_directory(targets_folder()); }

Target with_catalogue_figures(Target local) {
  try {
    const model::TargetCatalog catalog = load_targets();
    if (const Target* known = catalog.try_find(local.display_name)) {
      local.memory_latency_ns = known->memory_latency_ns;
      local.schedulers_per_sm = known->schedulers_per_sm;
      local.l2_bandwidth_gbs = known->l2_bandwidth_gbs;
      const auto source = known->sources.find("memory_latency_ns");
      local.sources["memory_latency_ns"] =
          known->origin + (source != known->sources.end() ? ": " + source->second : std::string{});
    }
  } catch (const std::exception&) {
    // No catalogue (moved install): the model's time bounds are then skipped.
  }
  return local;
}

std::vector<std::string> catalogue_names(const Target& t) {
  try {
    const model::TargetCatalog catalog = load_targets();
    const Target* known = catalog.try_find(t.display_name);
    if (!known) known = catalog.try_find(t.name);
    if (!known) return {};
    std::vector<std::string> names{known->name, known->display_name};
    names.insert(names.end(), known->aliases.begin(), known->aliases.end());
    return names;
  } catch (const std::exception&) {
    return {}; // no catalogue (moved install): names must then match exactly
  }
}

ResolvedTarget resolve_target(const std::string& name, int device, bool predict) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "local") return {with_catalogue_figures(local_target(device)), true};

  const model::TargetCatalog catalog = load_targets();
  const Target* found = catalog.try_find(name);
  if (!found) {
    std::vector<std::string> known = catalog.names();
    known.insert(known.begin(), "local");
    throw model::UnknownTargetError(name, known);
  }
  // The catalogue entry of the GPU in this machine is measured, not modeled.
  if (!predict && cuda::driver_available()) {
    Target local = with_catalogue_figures(local_target(device));
    if (catalog.try_find(local.display_name) == found) {
      local.name = found->name;
      return {local, true};
    }
  }
  return {*found, false};
}

} // namespace memtune
