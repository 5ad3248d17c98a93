#include <memtune/io/number_text.hpp>
#include <memtune/profile/store_merge.hpp>

#include <algorithm>

namespace memtune {
namespace {
std::string pick_text(const ProfileEntry& e) {
  return config_text(e.config) + " (" + e.mode + ", " + number_text("%.4g us", e.time_s * 1e6) + ")";
}
} // namespace

MergedStore merge_profile_stores(const std::vector<StorePart>& parts) {
  MergedStore out;
  std::vector<const std::string*> origin; // the file each kept entry came from
  for (const StorePart& part : parts) {
    for (std::size_t i = 0; i < part.entries.size(); ++i) {
      const ProfileEntry& in = part.entries[i];
      const auto it = std::find_if(out.entries.begin(), out.entries.end(),
                                   [&](const ProfileEntry& e) { return same_profile_key(e, in); });
      if (it == out.entries.end()) {
        out.entries.push_back(in);
        origin.push_back(&part.file);
        continue;
      }
      if (same_pick(*it, in)) {
        ++out.identical_duplicates;
        continue;
      }
      const std::string& other = *origin[static_cast<std::size_t>(it - out.entries.begin())];
      throw InputError(part.file, 0, "entries[" + std::to_string(i) + "]",
                       entry_key_text(in) + ": " + pick_text(in) + " here, " + pick_text(*it) + " in " + other +
                           ": two results for one key; merge joins agreeing stores only (`memtune profile merge` "
                           "keeps the faster measured one)");
    }
  }
  return out;
}

} // namespace memtune
