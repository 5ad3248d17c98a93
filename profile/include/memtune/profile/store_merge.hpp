#pragma once
// Joins profile stores (`memtune merge STORE... -o OUT`): the union of their
// entries. Entries are keyed by device (name, compute capability, SMs),
// template and problem, so different GPU models stay apart by construction.
// Two stores holding one key must agree on it (configuration, mode and
// time; the date may differ): identical duplicates are kept once, anything
// else is refused naming both files and both picks. `memtune profile merge`
// is the command that resolves such conflicts by a rule (the faster
// measured entry stays); this join never picks between two results.
#include <memtune/profile/profile_store.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace memtune {

struct StorePart {
  std::string file;
  std::vector<ProfileEntry> entries;
};

struct MergedStore {
  std::vector<ProfileEntry> entries;      // first-seen order
  std::size_t identical_duplicates = 0;   // keys held by more than one store, with the same pick
};

// Throws InputError naming the later store's file when two stores disagree on a key.
[[nodiscard]] MergedStore merge_profile_stores(const std::vector<StorePart>& parts);

} // namespace memtune
