#include <memtune/measure/device_list.hpp>

#include <algorithm>
#include <charconv>

namespace memtune {
namespace {

std::string join(const std::vector<int>& ordinals, const char* separator) {
  std::string s;
  for (int o : ordinals) s += (s.empty() ? "" : separator) + std::to_string(o);
  return s;
}

std::string mixed_message(const std::vector<DeviceGroup>& groups) {
  std::string s = "the GPUs are of " + std::to_string(groups.size()) + " models (";
  for (std::size_t i = 0; i < groups.size(); ++i) s += (i ? "; " : "") + describe(groups[i]);
  // A ranking of one model's GPUs: times of different models are not comparable.
  return s + "): one run ranks one model; list one model's GPUs (--devices " + join(groups.front().ordinals, ",") +
         ") or pass --mixed-devices to tune each model apart";
}

} // namespace

DeviceList DeviceList::parse(const std::string& text) {
  if (text == "all") return {true, {}};
  if (text.empty()) throw std::invalid_argument("expected 'all' or GPU ordinals such as 0,2; got nothing");
  DeviceList list;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string item = text.substr(begin, comma - begin);
    int ordinal = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || ordinal < 0 || ordinal > 1023)
      throw std::invalid_argument("'" + item + "' in '" + text +
                                  "' is not a GPU ordinal (expected 'all' or whole numbers 0-1023 separated by commas, "
                                  "e.g. 0,2)");
    if (std::find(list.ordinals.begin(), list.ordinals.end(), ordinal) != list.ordinals.end())
      throw std::invalid_argument("GPU " + item + " is listed twice in '" + text + "'");
    list.ordinals.push_back(ordinal);
    begin = comma + 1;
  }
  return list;
}

std::vector<int> DeviceList::resolve(int count) const {
  if (!all) return ordinals; // each listed GPU's worker says whether the host has it
  std::vector<int> every(static_cast<std::size_t>(std::max(count, 0)));
  for (int i = 0; i < count; ++i) every[static_cast<std::size_t>(i)] = i;
  return every;
}

std::string DeviceList::to_string() const { return all ? "all" : join(ordinals, ","); }

std::vector<DeviceGroup> group_by_model(const std::vector<std::pair<int, DeviceFingerprint>>& devices) {
  std::vector<DeviceGroup> groups;
  for (const auto& device : devices) { // not a structured binding: the lambda captures it (clang 14)
    const DeviceFingerprint& model = device.second;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const DeviceGroup& x) { return x.model == model; });
    if (g == groups.end()) g = groups.insert(groups.end(), DeviceGroup{model, {}});
    g->ordinals.push_back(device.first);
  }
  return groups;
}

std::string describe(const DeviceGroup& g) {
  return join(g.ordinals, ", ") + ": " + g.model.name + " (sm_" + std::to_string(g.model.cc_major) +
         std::to_string(g.model.cc_minor) + ", " + std::to_string(g.model.sm_count) + " SMs)";
}

MixedDevices::MixedDevices(std::vector<DeviceGroup> groups)
    : std::invalid_argument(mixed_message(groups)), groups_(std::move(groups)) {}

} // namespace memtune
