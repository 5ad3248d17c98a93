#include <memtune/tune/transfer.hpp>
#include <memtune/io/json_document.hpp>
#include <memtune/io/json_fields.hpp>

#include <memtune/profile/profile_store.hpp>
#include <memtune/search/recording.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <set>

namespace memtune {
namespace {

using nlohmann::json;

// A configuration's key on a set of axes: its values by name, in name order.
std::string key_on(const json& config, const std::vector<std::string>& axes) {
  json key = json::object();
  for (const auto& a : axes)
    if (auto it = config.find(a); it != config.end()) key[a] = *it;
  return key.dump();
}

void keep_fastest(std::map<std::string, double>& seconds, const std::string& key, double s) {
  auto [it, inserted] = seconds.emplace(key, s);
  if (!inserted) it->second = std::min(it->second, s);
}

const Target& source_target(const model::TargetCatalog& catalog, const std::string& device,
                            const std::filesystem::path& file) {
  if (const Target* t = catalog.try_find(device)) return *t;
  throw TransferError(file.string() + ": measured on \"" + device +
                      "\", which no catalogue target names (memtune targets lists them; add the name to that "
                      "GPU's aliases in configs/targets)");
}

} // namespace

std::optional<double> TransferSource::measured(const search::Space& space, const search::Config& config) const {
  const json target = space.config_to_json(config);
  std::vector<std::string> common;
  for (const auto& a : axes)
    if (target.contains(a)) common.push_back(a);
  auto [index, fresh] = index_.try_emplace(common);
  if (fresh)
    for (const auto& [source_config, s] : trials) keep_fastest(index->second, key_on(source_config, common), s);
  const auto it = index->second.find(key_on(target, common));
  if (it == index->second.end()) return std::nullopt;
  return it->second;
}

std::string TransferSource::describe() const {
  return file.filename().string() + " (" + kind + "): " + device_name + ", " + std::to_string(trials.size()) +
         " configuration" + (trials.size() == 1 ? "" : "s") + " measured";
}

TransferSource load_transfer_source(const std::filesystem::path& file, const KernelDescription& kernel,
                                    const Problem& problem, const model::TargetCatalog& catalog) {
  json document;
  try {
    document = io::read_json_file(file).root(); // syntax errors, 1e400 and duplicate keys with the file and line
  } catch (const InputError& e) {
    throw TransferError(e.what());
  }
  TransferSource s;
  s.file = file;
  // The axes the target's space has for this problem, for keys; the source's
  // own axes where it is a recording.
  if (document.is_object() && document.contains("trials")) {
    s.kind = "recording";
    search::Recording rec;
    try {
      rec = search::load_recording(file);
    } catch (const std::exception& e) {
      throw TransferError(e.what());
    }
    if (rec.template_name != kernel.name)
      throw TransferError(file.string() + ": a recording of " + rec.template_name + ", not of " + kernel.name);
    // Transfer carries measured times, as from a store's measured entries.
    if (rec.mode == "modeled")
      throw TransferError(file.string() + ": a modeled recording (predicted times, not measured): --from needs "
                                          "another GPU's measured times");
    Problem recorded;
    for (const auto& [name, value] : rec.problem.items()) {
      if (!value.is_number_integer())
        throw TransferError(file.string() + ": field 'problem." + name + "': expected an integer, got " +
                            io::shown(value) + " (transfer needs the problem the recording measured)");
      recorded[name] = value.get<std::int64_t>();
    }
    if (recorded != problem)
      throw TransferError(file.string() + ": recorded for " + format_problem(recorded) + ", not for " +
                          format_problem(problem) + " (transfer needs the same problem measured)");
    s.device_name = rec.device.value("name", std::string());
    s.target = source_target(catalog, s.device_name, file);
    for (const auto& axis : rec.space.axes()) s.axes.push_back(axis.name);
    for (const auto& t : rec.trials)
      if (t.ok()) s.trials.emplace_back(rec.space.config_to_json(t.config), *t.time_s);
    if (const auto it = rec.annotations.find("copy_ceiling_gbps"); it != rec.annotations.end() && it->is_number())
      s.copy_ceiling_gbps = std::max(0.0, it->get<double>());
  } else if (document.is_object() && document.contains("entries")) {
    s.kind = "profile store";
    std::vector<ProfileEntry> entries;
    try {
      entries = ProfileStore(file).entries();
    } catch (const std::exception& e) {
      throw TransferError(e.what());
    }
    std::set<std::string> devices;
    for (const auto& e : entries) {
      if (e.template_name != kernel.name || e.problem != problem || e.mode != "measured") continue;
      devices.insert(e.device.name);
      s.device_name = e.device.name;
      for (const auto& [name, value] : e.config.items()) s.axes.push_back(name);
      s.trials.emplace_back(e.config, e.time_s);
      for (const auto& r : e.runner_ups)
        if (r.contains("config") && r["config"].is_object() && r.contains("time_s") && r["time_s"].is_number())
          s.trials.emplace_back(r["config"], r["time_s"].get<double>());
    }
    if (devices.size() > 1)
      throw TransferError(file.string() + ": measured entries of " + kernel.name + " " + format_problem(problem) +
                          " for " + std::to_string(devices.size()) + " GPUs; keep one GPU's entries in the store");
    std::sort(s.axes.begin(), s.axes.end());
    s.axes.erase(std::unique(s.axes.begin(), s.axes.end()), s.axes.end());
    if (!s.trials.empty()) s.target = source_target(catalog, s.device_name, file);
  } else {
    throw TransferError(file.string() + ": neither a recording (memtune ... --record) nor a profile store (--save)");
  }
  std::sort(s.axes.begin(), s.axes.end());
  if (s.trials.empty())
    throw TransferError(file.string() + ": no configuration of " + kernel.name + " " + format_problem(problem) +
                        " measured successfully");
  return s;
}

TransferSource sweep_source(const TuningResult& done, const std::string& label) {
  TransferSource s;
  s.file = label;
  s.kind = done.measured ? "measured size" : "modeled size";
  s.device_name = done.device.name;
  s.problem = done.problem;
  for (const auto& axis : done.space.axes()) s.axes.push_back(axis.name);
  std::sort(s.axes.begin(), s.axes.end());
  for (const Evaluation& e : done.evaluations) {
    if (e.ok() && e.timing && e.timing->median_s > 0) s.trials.emplace_back(done.space.config_to_json(e.config), e.timing->median_s);
    if (e.resources.registers > 0) s.compiled.emplace_back(done.space.config_to_json(e.config), e.resources); // 0: not compiled
  }
  if (done.ceiling) s.copy_ceiling_gbps = done.ceiling->gbps;
  if (s.trials.empty())
    throw TransferError(label + ": no configuration of " + done.template_name + " has a time to start from");
  return s;
}

std::optional<search::Config> corresponding_config(const search::Space& from, const search::Config& config,
                                                   const search::Space& to) {
  const json values = from.config_to_json(config);
  // An axis `to` lacks must hold its first value, the kernel the old space
  // had (a staging=direct filter has no counterpart in a recording made
  // before that axis existed), unless `to` pruned it for its GPU (Kepler's
  // bank mode on an H100 recording: every value is the same kernel there).
  for (const auto& axis : from.axes()) {
    const auto named = [&](const auto& a) { return a.name == axis.name; };
    const bool in_to = std::any_of(to.axes().begin(), to.axes().end(), named) ||
                       std::any_of(to.pruned().begin(), to.pruned().end(), named);
    if (!in_to && !axis.values.empty() && config.at(axis.name) != axis.values.front()) return std::nullopt;
  }
  // An axis `from` never had (`to` gained it since the recording) takes its
  // first value, the kernel the recording measured (config_from_saved_json);
  // one `from` pruned for its GPU (every value the same kernel there) has no
  // value to give.
  json mapped = json::object();
  for (const auto& axis : to.axes()) {
    const auto it = values.find(axis.name);
    if (it != values.end()) {
      mapped[axis.name] = *it;
      continue;
    }
    const auto named = [&](const auto& a) { return a.name == axis.name; };
    if (std::any_of(from.pruned().begin(), from.pruned().end(), named)) return std::nullopt;
  }
  try {
    search::Config c = to.config_from_saved_json(mapped);
    if (!to.is_valid(c)) return std::nullopt;
    return c;
  } catch (const std::invalid_argument&) {
    return std::nullopt; // a value `to` does not have
  }
}

Transferred transfer_times(const TransferSource& source, const search::Space& space,
                           const std::map<search::Config, double>& target_model,
                           const std::map<search::Config, double>& source_model) {
  Transferred out;
  std::vector<double> ratios; // measured / modeled on the source
  for (const auto& [config, modeled] : source_model)
    if (const auto m = source.measured(space, config); m && modeled > 0) ratios.push_back(*m / modeled);
  if (!ratios.empty()) {
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
    out.median_ratio = ratios[ratios.size() / 2];
  }
  for (const auto& [config, target_s] : target_model) {
    const auto s = source_model.find(config);
    const auto m = source.measured(space, config);
    if (m && s != source_model.end() && s->second > 0) {
      out.seconds[config] = *m * target_s / s->second;
    } else {
      out.seconds[config] = target_s * out.median_ratio;
      ++out.model_only;
    }
  }
  return out;
}

void apply_memory_floor(Transferred& transferred, const TransferSource& source, const search::Space& space,
                        const MemoryFloorInputs& inputs) {
  if (source.copy_ceiling_gbps <= 0 || inputs.source_peak_gbs <= 0 || inputs.target_peak_gbs <= 0) return;
  const double scale = inputs.source_peak_gbs / inputs.target_peak_gbs;
  for (auto& [config, seconds] : transferred.seconds) {
    const auto bytes = inputs.dram_bytes.find(config);
    const auto m = source.measured(space, config);
    if (bytes == inputs.dram_bytes.end() || !m || bytes->second <= 0) continue;
    const auto k = inputs.overlap_units.find(config);
    const double units = k == inputs.overlap_units.end() ? 1.0 : std::max(1.0, k->second);
    const double floor = std::min(*m, bytes->second / (source.copy_ceiling_gbps * 1e9)) * scale;
    seconds = std::max(floor, seconds) + std::min(floor, seconds) / units;
  }
}

Transferred transfer_by_bandwidth(const TransferSource& source, const Target& target, const search::Space& space,
                                  const std::vector<search::Config>& configs) {
  const double from = source.target.dram_bandwidth_gbs, to = target.dram_bandwidth_gbs;
  if (!(from > 0) || !(to > 0))
    throw TransferError(source.file.string() + ": the catalogue gives " + (from > 0 ? target.name : source.target.name) +
                        " no peak DRAM bandwidth, so a kernel without an access pattern cannot be scaled to " +
                        target.name);
  Transferred out;
  out.median_ratio = from / to;
  for (const search::Config& c : configs)
    if (const auto m = source.measured(space, c)) out.seconds[c] = *m * out.median_ratio;
  return out;
}

Transferred transfer_predictions(const TransferSource& source, const Target& target, const search::Space& space,
                                 const std::vector<Evaluation>& target_model, const search::Space& source_space,
                                 const std::vector<Evaluation>& source_model) {
  std::map<search::Config, const Evaluation*> source_by_config;
  for (const auto& e : source_model)
    if (e.ok() && e.timing && e.timing->median_s > 0) source_by_config[e.config] = &e;
  std::map<search::Config, double> target_seconds, source_seconds;
  MemoryFloorInputs floor;
  floor.source_peak_gbs = source.target.dram_bandwidth_gbs;
  floor.target_peak_gbs = target.dram_bandwidth_gbs;
  for (const auto& e : target_model) {
    if (!e.ok() || !e.timing || !(e.timing->median_s > 0)) continue;
    target_seconds[e.config] = e.timing->median_s;
    if (e.model) floor.overlap_units[e.config] = e.model->overlap_units_per_sm;
    const auto c = corresponding_config(space, e.config, source_space);
    if (!c) continue;
    if (const auto it = source_by_config.find(*c); it != source_by_config.end()) {
      source_seconds[e.config] = it->second->timing->median_s;
      if (it->second->model) floor.dram_bytes[e.config] = it->second->model->dram_bytes;
    }
  }
  Transferred t = transfer_times(source, space, target_seconds, source_seconds);
  apply_memory_floor(t, source, space, floor);
  return t;
}

} // namespace memtune
