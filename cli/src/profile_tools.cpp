#include <memtune/io/number_text.hpp>
#include "profile_tools.hpp"

#include <memtune/io/errors.hpp>

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
    if (same_pick(*it, in)) {
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
  if (saved_before && !e.saved_at.empty()) {
    const std::int64_t limit = utc_seconds_option("--before", *saved_before);
    const std::optional<std::int64_t> saved = utc_seconds(e.saved_at);
    if (!saved)
      throw InputError("", 0, "saved_at", "\"" + e.saved_at.substr(0, 40) + "\" of the entry " + entry_key_text(e) +
                                               " is not an ISO 8601 time (YYYY-MM-DDTHH:MM:SSZ): nothing was removed");
    if (*saved >= limit) return false;
  }
  if (device && lower(e.device.name).find(lower(*device)) == std::string::npos) return false;
  if (template_name && e.template_name != *template_name) return false;
  if (modeled_only && e.mode != "modeled") return false;
  return true;
}

namespace {

// Exactly `digits` decimal digits at text[at...]; -1 otherwise.
int digits_at(std::string_view text, std::size_t at, std::size_t digits) {
  if (at + digits > text.size()) return -1;
  int v = 0;
  for (std::size_t i = at; i < at + digits; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    v = v * 10 + (text[i] - '0');
  }
  return v;
}

} // namespace

std::optional<std::int64_t> utc_seconds(std::string_view iso) {
  if (!iso.empty() && iso.back() == 'Z') iso.remove_suffix(1);
  // YYYY-MM-DD, then optionally THH:MM, then optionally :SS.
  if (iso.size() != 10 && iso.size() != 16 && iso.size() != 19) return std::nullopt;
  const int year = digits_at(iso, 0, 4), month = digits_at(iso, 5, 2), day = digits_at(iso, 8, 2);
  if (year < 0 || month < 0 || day < 0 || iso[4] != '-' || iso[7] != '-') return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return std::nullopt;
  int hour = 0, minute = 0, second = 0;
  if (iso.size() >= 16) {
    hour = digits_at(iso, 11, 2);
    minute = digits_at(iso, 14, 2);
    if (iso[10] != 'T' || iso[13] != ':' || hour < 0 || hour > 23 || minute < 0 || minute > 59) return std::nullopt;
  }
  if (iso.size() == 19) {
    second = digits_at(iso, 17, 2);
    if (iso[16] != ':' || second < 0 || second > 60) return std::nullopt; // 60: a leap second
  }
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  return static_cast<std::int64_t>(days) * 86400 + hour * 3600 + minute * 60 + second;
}

std::int64_t utc_seconds_option(const std::string& option, const std::string& text) {
  if (const auto s = utc_seconds(text)) return *s;
  throw ArgumentError(option, "\"" + text.substr(0, 40) + (text.size() > 40 ? "..." : "") +
                                  "\" is not an ISO 8601 date: write YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC), "
                                  "e.g. 2026-01-31");
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
    else {
      ++d.same;
      if (x.time_s > 0 && it->time_s > 0 && x.time_s != it->time_s) {
        ++d.same_other_time;
        d.largest_time_ratio = std::max(d.largest_time_ratio, std::max(x.time_s, it->time_s) / std::min(x.time_s, it->time_s));
      }
    }
  }
  for (const ProfileEntry& y : b)
    if (std::none_of(a.begin(), a.end(), [&](const ProfileEntry& x) { return same_profile_key(x, y); })) d.only_b.push_back(y);
  return d;
}

std::string kernel_version_text(const ProfileEntry& e, const KernelDescription* kernel, const std::string& whose) {
  if (e.kernel_fingerprint.empty()) return "kernel version: not recorded (saved before memtune recorded it)";
  const std::string text = "kernel fingerprint " + e.kernel_fingerprint;
  if (!kernel) return text + " (give --spec to compare it with the kernel's description)";
  const std::string now = kernel->fingerprint();
  return text + (*same_kernel(e, now) ? ": the same as " + whose + " " + kernel->name
                                      : ": " + whose + " " + kernel->name + " is " + now +
                                            " (its description or source changed since; tune again to refresh the entry)");
}

} // namespace memtune::cli
