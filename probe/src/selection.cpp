// `memtune probe --only`: which probes and items a run selects ("bank",
// "offset:7", "coalescing" for both curves), and a clear error for a name
// that selects nothing.
#include <memtune/probe/bank_probe.hpp>
#include <memtune/probe/coalescing.hpp>
#include <memtune/probe/runner.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace memtune::probe {
namespace {

struct Selector {
  std::string probe, item;
};

Selector split(const std::string& s) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) return {s, {}};
  return {s.substr(0, colon), s.substr(colon + 1)};
}

bool item_exists(const std::string& probe, const std::string& item) {
  auto in_range = [&](int lo, int hi) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(item, &used);
      return used == item.size() && v >= lo && v <= hi;
    } catch (const std::exception&) {
      return false;
    }
  };
  if (probe == "offset") return in_range(0, coalescing_max_offset);
  if (probe == "stride") return in_range(1, coalescing_max_stride);
  if (probe == "bank") return find_bank_variant(item) != nullptr;
  if (probe == "latency") return item == "dram" || item == "l2";
  return false;
}

} // namespace

void check_selectors(const std::vector<std::string>& only) {
  for (const auto& s : only) {
    const Selector sel = split(s);
    const bool known_probe = sel.probe == "copy" || sel.probe == "coalescing" || sel.probe == "offset" ||
                             sel.probe == "stride" || sel.probe == "bank" || sel.probe == "latency" ||
                             sel.probe == "l2" || sel.probe == "launch";
    if (!known_probe)
      throw std::invalid_argument("--only " + s + ": unknown probe '" + sel.probe +
                                  "' (copy, coalescing, offset, stride, bank, latency, l2, launch)");
    if (sel.item.empty()) continue;
    if (!item_exists(sel.probe, sel.item)) {
      std::string known;
      if (sel.probe == "bank")
        for (const auto& v : bank_variants()) known += (known.empty() ? "" : ", ") + v.name;
      else if (sel.probe == "offset") known = "0.." + std::to_string(coalescing_max_offset);
      else if (sel.probe == "stride") known = "1.." + std::to_string(coalescing_max_stride);
      else if (sel.probe == "latency") known = "dram, l2";
      else known = "none: select the whole probe";
      throw std::invalid_argument("--only " + s + ": no item '" + sel.item + "' in probe " + sel.probe + " (" + known + ")");
    }
  }
}

bool selected(const std::vector<std::string>& only, const std::string& probe, const std::string& item) {
  if (only.empty()) return true;
  for (const auto& s : only) {
    const Selector sel = split(s);
    const bool probe_match = sel.probe == probe || (sel.probe == "coalescing" && (probe == "offset" || probe == "stride"));
    if (!probe_match) continue;
    if (sel.item.empty() || item.empty() || sel.item == item) return true;
  }
  return false;
}

} // namespace memtune::probe
