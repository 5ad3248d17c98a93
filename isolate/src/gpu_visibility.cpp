#include <memtune/isolate/gpu_visibility.hpp>

#include <algorithm>
#include <cctype>
#include <vector>

namespace memtune::isolation {
namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

bool all_of(const std::string& s, std::size_t from, int (*accept)(int)) {
  return s.size() > from && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.end(),
                                        [&](unsigned char c) { return accept(c) != 0; });
}

int uuid_char(int c) { return std::isxdigit(c) || c == '-' || c == '/'; }

// An entry the driver reads as one GPU: an ordinal (its value, so "01" and
// "1" are one GPU) or a GPU-/MIG- UUID (as written).
std::optional<std::string> gpu_key(const std::string& entry) {
  if (all_of(entry, 0, [](int c) { return std::isdigit(c); })) {
    const std::size_t nonzero = entry.find_first_not_of('0');
    return nonzero == std::string::npos ? "0" : entry.substr(nonzero);
  }
  if ((entry.starts_with("GPU-") || entry.starts_with("MIG-")) && all_of(entry, 4, uuid_char)) return entry;
  return std::nullopt;
}

} // namespace

std::optional<std::string> single_gpu_visibility(int ordinal, const char* visible) {
  if (ordinal < 0) return std::nullopt;
  if (!visible) return std::to_string(ordinal);
  const std::string list = visible;
  std::vector<std::string> entries, keys;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t comma = std::min(list.find(',', begin), list.size());
    const std::string entry = trimmed(list.substr(begin, comma - begin));
    const std::optional<std::string> key = gpu_key(entry);
    if (!key || std::find(keys.begin(), keys.end(), *key) != keys.end()) return std::nullopt;
    entries.push_back(entry);
    keys.push_back(*key);
    begin = comma + 1;
  }
  if (static_cast<std::size_t>(ordinal) >= entries.size()) return std::nullopt;
  return entries[static_cast<std::size_t>(ordinal)];
}

} // namespace memtune::isolation
