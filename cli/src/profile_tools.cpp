#include <memtune/number_text.hpp>
#include "profile_tools.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace memtune::cli {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string describe(const ProfileEntry& e, const std::string& where) {
  return config_text(e.config) + " (" + e.mode + ", " + number_text("%.2f us", e.time_s * 1e6) + (e.saved_at.empty() ? "" : ", " + e.saved_at) +
         ", " + where + ")";
}

// True when `incoming` should replace `current` under the merge rule.
bool incoming_wins(const ProfileEntry& current, const ProfileEntry& incoming, std::string& why) {
  const bool cm = current.mode == "measured", im = incoming.mode == "measured";
  if (cm != im) {
    why = "measured beats modeled";
    return im;
  }
  if (current.time_s != incoming.time_s) {
    why = "faster " + current.mode;
    return incoming.time_s > 0 && (current.time_s <= 0 || incoming.time_s < current.time_s);
  }
  why = "same time, newer";
  return incoming.saved_at > current.saved_at;
}

} // namespace

std::string config_text(const nlohmann::json& config) {
  std::string s;
  for (const auto& [k, v] : config.items())
    s += (s.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

std::string entry_key_text(const ProfileEntry& e) {
  std::string problem;
  for (const auto& [k, v] : e.problem) problem += " " + k + "=" + std::to_string(v);
  return e.device.name + " (sm_" + std::to_string(e.device.cc_major) + std::to_string(e.device.cc_minor) + ", " +
         std::to_string(e.device.sm_count) + " SMs) " + e.template_name + problem;
}

MergeOutcome merge_entries(std::vector<ProfileEntry>& entries, const std::vector<ProfileEntry>& incoming,
                           const std::string& source) {
  MergeOutcome out;
  for (const ProfileEntry& in : incoming) {
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const ProfileEntry& e) { return same_profile_key(e, in); });
    if (it == entries.end()) {
      entries.push_back(in);
      ++out.added;
      continue;
    }
    if (it->config == in.config && it->mode == in.mode && it->time_s == in.time_s) {
      ++out.identical;
      continue;
    }
    std::string why;
    const bool replace = incoming_wins(*it, in, why);
    const ProfileEntry& winner = replace ? in : *it;
    const ProfileEntry& loser = replace ? *it : in;
    out.conflicts.push_back(entry_key_text(in) + ": kept " + describe(winner, replace ? source : "destination") +
                            " over " + describe(loser, replace ? "destination" : source) + ": " + why);
    if (replace) {
      *it = in;
      ++out.replaced;
    } else {
      ++out.kept;
    }
  }
  return out;
}

bool PruneRule::matches(const ProfileEntry& e) const {
  if (saved_before && !e.saved_at.empty() && !(e.saved_at < *saved_before)) return false;
  if (device && lower(e.device.name).find(lower(*device)) == std::string::npos) return false;
  if (template_name && e.template_name != *template_name) return false;
  if (modeled_only && e.mode != "modeled") return false;
  return true;
}

std::string utc_days_ago(double days) {
  // In seconds of time_t: nanosecond clocks overflow past ~290 years.
  const double then = static_cast<double>(std::time(nullptr)) - days * 86400.0;
  const std::time_t tt = static_cast<std::time_t>(std::max(then, 0.0));
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

StoreDiff diff_stores(const std::vector<ProfileEntry>& a, const std::vector<ProfileEntry>& b) {
  StoreDiff d;
  for (const ProfileEntry& x : a) {
    const auto it = std::find_if(b.begin(), b.end(), [&](const ProfileEntry& y) { return same_profile_key(x, y); });
    if (it == b.end()) d.only_a.push_back(x);
    else if (x.config != it->config || x.mode != it->mode) d.different.push_back({x, *it});
    else ++d.same;
  }
  for (const ProfileEntry& y : b)
    if (std::none_of(a.begin(), a.end(), [&](const ProfileEntry& x) { return same_profile_key(x, y); })) d.only_b.push_back(y);
  return d;
}

} // namespace memtune::cli
