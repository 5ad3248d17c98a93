#pragma once
// What `memtune profile merge|prune|diff` decide, apart from the command
// line: the rules are tested on entries in memory; the command applies them
// through ProfileStore::update (its lock and atomic replace).
#include <memtune/profile_store.hpp>

#include <optional>
#include <string>
#include <vector>

namespace memtune::cli {

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs) filter n=16777216 taps=21"
[[nodiscard]] std::string entry_key_text(const ProfileEntry& e);
// "block_size=256 packing=1" from a profile's config object.
[[nodiscard]] std::string config_text(const nlohmann::json& config);

struct MergeOutcome {
  std::size_t added = 0;      // keys the destination did not have
  std::size_t replaced = 0;   // conflicts won by the incoming entry
  std::size_t kept = 0;       // conflicts won by the destination's entry
  std::size_t identical = 0;  // the same configuration and time on both sides
  std::vector<std::string> conflicts; // one line per conflict: which entry stayed and why
};

// Merges `incoming` (from the store `source`) into `entries`. On a key both
// have, the faster measured entry stays: a measured entry beats a modeled
// one; between two of the same mode the shorter time wins; a tie keeps the
// newer saved_at.
MergeOutcome merge_entries(std::vector<ProfileEntry>& entries, const std::vector<ProfileEntry>& incoming,
                           const std::string& source);

// Entries to remove: every given criterion must hold.
struct PruneRule {
  std::optional<std::string> saved_before; // ISO 8601 date or time: entries saved before it (no date: always)
  std::optional<std::string> device;       // device name, case-insensitive substring
  std::optional<std::string> template_name;
  bool modeled_only = false;
  [[nodiscard]] bool empty() const { return !saved_before && !device && !template_name && !modeled_only; }
  [[nodiscard]] bool matches(const ProfileEntry& e) const;
};

// The UTC date `days` days before now, "YYYY-MM-DDTHH:MM:SSZ".
[[nodiscard]] std::string utc_days_ago(double days);

// Keys in both stores whose picks differ (configuration or mode).
struct PickDifference {
  ProfileEntry a, b;
};
struct StoreDiff {
  std::vector<PickDifference> different;
  std::vector<ProfileEntry> only_a, only_b;
  std::size_t same = 0;
};
[[nodiscard]] StoreDiff diff_stores(const std::vector<ProfileEntry>& a, const std::vector<ProfileEntry>& b);

} // namespace memtune::cli
