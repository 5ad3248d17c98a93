#pragma once
// What `memtune profile merge|prune|diff` decide, apart from the command
// line: the rules are tested on entries in memory; the command applies them
// through ProfileStore::update (its lock and atomic replace).
#include <memtune/description/kernel_description.hpp>
#include <memtune/profile/profile_store.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace memtune::cli {

// (entry_key_text and config_text, which these use, are profile_store.hpp's.)

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
  std::optional<std::string> saved_before; // ISO 8601 date or time (utc_seconds): entries saved before it (no date: always)
  std::optional<std::string> device;       // device name, case-insensitive substring
  std::optional<std::string> template_name;
  bool modeled_only = false;
  [[nodiscard]] bool empty() const { return !saved_before && !device && !template_name && !modeled_only; }
  // Throws InputError naming the entry's saved_at when it is not an ISO 8601 time.
  [[nodiscard]] bool matches(const ProfileEntry& e) const;
};

// An ISO 8601 UTC date or time, as seconds since 1970-01-01T00:00:00Z:
// "YYYY-MM-DD", "YYYY-MM-DDTHH:MM", "YYYY-MM-DDTHH:MM:SS", each optionally
// followed by "Z" (what memtune writes in saved_at). nullopt for anything else,
// a day that does not exist (2026-02-30) included: dates are compared as
// dates, never as text.
[[nodiscard]] std::optional<std::int64_t> utc_seconds(std::string_view iso);
// utc_seconds, or ArgumentError naming `option` and the formats it accepts.
[[nodiscard]] std::int64_t utc_seconds_option(const std::string& option, const std::string& text);

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
  // Of the same picks, those timed differently (a rerun's noise, or another
  // clock), and the largest ratio between the two times (>= 1).
  std::size_t same_other_time = 0;
  double largest_time_ratio = 1.0;
};
[[nodiscard]] StoreDiff diff_stores(const std::vector<ProfileEntry>& a, const std::vector<ProfileEntry>& b);

// `memtune profile show`'s line on whether entry `e` was tuned for `kernel`
// as it is now (`whose`: "--spec's" or "this memtune's built-in"); nullptr:
// a user's kernel shown without --spec.
std::string kernel_version_text(const ProfileEntry& e, const KernelDescription* kernel, const std::string& whose);

} // namespace memtune::cli
