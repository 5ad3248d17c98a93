#include <memtune/cuda/driver_api.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/model/install_layout.hpp>
#include <memtune/measure/target_resolver.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <tuple>
#include <vector>

namespace memtune {

std::filesystem::path targets_folder() {
  return model::resolve_targets_dir(data_candidates("targets"));
}

model::TargetCatalog load_targets() { return model::TargetCatalog::load_directory(targets_folder()); }

namespace {

// The catalogue entry closest to `local`'s architecture: the same major
// version first (the same compute capability, distance 0, leads it), then the nearest capability
// (an older one before a newer one at the same distance), then the nearest SM
// count. A catalogue holds at least one target (load_directory).
const Target& nearest_architecture(const model::TargetCatalog& catalog, const Target& local) {
  const Target* best = &catalog.targets().front();
  auto key = [&](const Target& t) {
    const int cc_distance = std::abs(t.compute_capability() - local.compute_capability());
    return std::tuple{t.cc_major != local.cc_major, cc_distance,
                      t.compute_capability() > local.compute_capability(), std::abs(t.sm_count - local.sm_count)};
  };
  for (const Target& t : catalog.targets())
    if (key(t) < key(*best)) best = &t;
  return *best;
}

// The figures of the SM's architecture the model needs and the driver does not
// report, with where each came from: latency, schedulers and pipes, which
// caches global loads go through, and the unified L1's size and shared-memory
// carve-outs where its shared memory per SM is the driver's.
void take_figures(Target& local, const Target& from, const std::string& how) {
  local.memory_latency_ns = from.memory_latency_ns;
  local.schedulers_per_sm = from.schedulers_per_sm;
  local.dispatch_per_scheduler = from.dispatch_per_scheduler;
  local.fp32_lanes_per_sm = from.fp32_lanes_per_sm;
  local.l1_caches_global_loads = from.l1_caches_global_loads;
  local.read_only_cache_bytes = from.read_only_cache_bytes;
  local.l1_write_combining_lines = from.l1_write_combining_lines;
  std::vector<std::string> fields{"memory_latency_ns",      "schedulers_per_sm",     "dispatch_per_scheduler",
                                  "fp32_lanes_per_sm",      "l1_caches_global_loads", "read_only_cache_bytes",
                                  "l1_write_combining_lines"};
  if (from.smem_per_sm == local.smem_per_sm) {
    local.l1_bytes = from.l1_bytes;
    local.smem_carveouts_kb = from.smem_carveouts_kb;
    fields.insert(fields.end(), {"l1_bytes", "smem_carveouts_kb"});
  }
  for (const std::string& f : fields) local.sources[f] = how + from.origin;
}

} // namespace

Target with_catalogue_figures(Target local) {
  std::string no_catalogue;
  try {
    const model::TargetCatalog catalog = load_targets();
    if (const Target* known = catalog.try_find(local.display_name)) {
      take_figures(local, *known, "");
      // The board's own: its L2 bandwidth, and what memtune probe measured on it.
      local.l2_bandwidth_gbs = known->l2_bandwidth_gbs;
      local.measured = known->measured;
      const auto source = known->sources.find("memory_latency_ns");
      if (source != known->sources.end()) local.sources["memory_latency_ns"] += ": " + source->second;
      return local;
    }
    // A GPU the catalogue does not name (a newer model, a variant): the SM's
    // figures of its architecture's nearest entry, which are properties of
    // the architecture more than of the board. Not its L2
    // bandwidth, which scales with the board's SMs and clocks: that bound
    // stays unmodelled (memtune probe measures one).
    const Target& kin = nearest_architecture(catalog, local);
    take_figures(local, kin, "borrowed from ");
    local.l2_bandwidth_gbs = 0;
    local.figures_note = "the target catalogue (" + catalog.directory().string() + ") has no entry for " +
                         local.display_name + ": the model takes the SM's figures (memory latency, schedulers, caches) of " +
                         kin.display_name + " (" + kin.arch() + ", its nearest architecture) and leaves L2 "
                         "unmodelled (`memtune probe --save-target FILE` into that folder gives this GPU its own entry)";
    return local;
  } catch (const std::exception& e) {
    no_catalogue = e.what(); // no catalogue where the program lies (a moved binary): says where it looked
  }
  // Without a catalogue: the middle of what its GPUs have, stated.
  local.memory_latency_ns = 450;
  local.schedulers_per_sm = 4;
  local.l2_bandwidth_gbs = 0;
  local.sources["memory_latency_ns"] = "assumed: 450 ns (the catalogue's GPUs: 400-500 ns)";
  local.sources["schedulers_per_sm"] = "assumed: 4 warp schedulers per SM (every catalogue GPU but the P100)";
  local.figures_note = no_catalogue + ": the model assumes a 450 ns memory latency and 4 schedulers per SM and leaves L1 "
                                      "and L2 unmodelled (set MEMTUNE_TARGETS_DIR to the catalogue's folder)";
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
