#pragma once
// Which GPU a run is for. "local" (or a catalogue name that matches the GPU
// in this machine) is measured; any other catalogue target is modeled.
#include <memtune/model/target_catalog.hpp>
#include <memtune/model/target.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace memtune {

// The catalogue folder: $MEMTUNE_TARGETS_DIR, else share/memtune/targets of
// the install (or build tree) the running program or package lies in
// (install_layout.hpp).
std::filesystem::path targets_folder();
model::TargetCatalog load_targets();

// The local GPU's description from the driver, completed with the figures the
// driver does not report (memory latency, schedulers and pipes, the L1's size
// and caching, L2 bandwidth, what memtune probe measured) from the catalogue
// entry of the same GPU; for a GPU the catalogue does not name, the SM's
// figures of the nearest architecture's entry (not L2's); with
// no catalogue found, stated assumptions. The last two say so in
// Target::figures_note.
Target with_catalogue_figures(Target local);

// Every name the catalogue knows `t`'s GPU model by (its entry's name,
// display name and aliases): the driver's name and a modeled target's display
// name are the same GPU. Empty when the catalogue has no entry for it.
std::vector<std::string> catalogue_names(const Target& t);

struct ResolvedTarget {
  Target target;
  bool measured = false; // the target is the GPU in this machine
};

// A catalogue name of the GPU in this machine resolves to that GPU, measured,
// unless `predict` (the catalogue entry, modeled: the model's prediction for a
// GPU that is here, to compare with a measured run). "local" is always
// measured. Throws model::UnknownTargetError listing the known names (and
// "local").
ResolvedTarget resolve_target(const std::string& name, int device = 0, bool predict = false);

} // namespace memtune
