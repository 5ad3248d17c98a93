#include <memtune/compile/kernel_resources_json.hpp>
#include <memtune/io/atomic_file.hpp>
#include <memtune/io/digest.hpp>
#include <memtune/io/json_document.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/io/version.hpp>

#include <memtune/io/utc_time.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

namespace memtune {
namespace {

std::string now_utc() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

// A store's document and its entries, checked field by field.
struct StoreDocument {
  nlohmann::json root;
  std::vector<ProfileEntry> entries;
};

StoreDocument parse_store(std::string text, const std::string& file) {
  // An empty file (made by `touch`) holds nothing to lose: an empty store.
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    return {{{"schema_version", kSchemaVersion}, {"entries", nlohmann::json::array()}}, {}};
  const io::JsonDocument doc = io::parse_json(std::move(text), file);
  return doc.read([](const io::JsonFields& root) {
    root.require_object();
    const io::JsonFields version = root.at("schema_version");
    if (version.integer<int>() != kSchemaVersion)
      version.fail("this memtune reads version " + std::to_string(kSchemaVersion) + ", the store has " +
                   io::shown(version.value()));
    StoreDocument d;
    // One entry a key (GPU, kernel, problem): two would leave which one a
    // lookup gets to the store's order.
    std::map<std::string, std::size_t> keys;
    const std::vector<io::JsonFields> entries = root.at("entries").elements();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      d.entries.push_back(ProfileEntry::from_fields(entries[i]));
      const auto [at, added] = keys.emplace(entry_key_text(d.entries.back()), i);
      if (!added)
        entries[i].fail("the same GPU, kernel and problem as entries[" + std::to_string(at->second) +
                        "] (" + entry_key_text(d.entries.back()) + "): keep one of them");
    }
    // Everything but the entries (which are rewritten from d.entries): a copy
    // of the whole tree would double what a large store takes while saving.
    d.root = nlohmann::json::object();
    for (const auto& [key, value] : root.value().items())
      if (key != "entries") d.root[key] = value;
    return d;
  });
}

ProfileError untouched(const InputError& e) {
  return ProfileError(InputError(e.file(), e.line(), e.field(), e.message() + ". The store was left untouched."));
}

} // namespace

bool same_profile_key(const ProfileEntry& a, const ProfileEntry& b) {
  return a.device == b.device && a.template_name == b.template_name && a.problem == b.problem;
}

static const std::set<std::string, std::less<>> kEntryFields{"device", "template",  "problem",    "config",
                                                      "mode",   "time_s",    "gbps",       "fraction_of_ceiling",
                                                      "rationale", "runner_ups", "tool", "saved_at",
                                                      "objective", "joules_per_launch", "mean_watts", "resources",
                                                      "kernel_fingerprint"};

nlohmann::json ProfileEntry::to_json() const {
  nlohmann::json j = unknown; // the known members below win over a stale copy
  j.update(nlohmann::json{{"device", device.to_json()}, {"template", template_name}, {"problem", problem},
                          {"config", config},           {"mode", mode},              {"time_s", time_s},
                          {"gbps", gbps},               {"fraction_of_ceiling", fraction_of_ceiling},
                          {"rationale", rationale},     {"runner_ups", runner_ups},  {"tool", tool},
                          {"saved_at", saved_at}});
  // time_s absent: not known (an entry made without a time), which the
  // reader takes back as 0; a time written is always positive.
  if (!(time_s > 0)) j.erase("time_s");
  // objective absent: time, as in stores written before.
  if (objective != "time") j["objective"] = objective;
  if (resources) j["resources"] = kernel_resources_to_json(*resources);
  if (joules_per_launch) j["joules_per_launch"] = *joules_per_launch;
  if (mean_watts) j["mean_watts"] = *mean_watts;
  if (!kernel_fingerprint.empty()) j["kernel_fingerprint"] = kernel_fingerprint;
  return j;
}

ProfileEntry ProfileEntry::from_json(const nlohmann::json& j) { return from_fields(io::JsonFields(j)); }

ProfileEntry ProfileEntry::from_fields(const io::JsonFields& j) {
  ProfileEntry e;
  e.device = DeviceFingerprint::from_fields(j.at("device"));
  e.template_name = j.at("template").nonempty_string();
  for (const auto& [name, value] : j.at("problem").members()) e.problem[name] = value.integer<std::int64_t>();
  const io::JsonFields config = j.at("config");
  config.require_object();
  e.config = config.value();
  if (const auto f = j.find("mode")) {
    e.mode = f->string();
    if (e.mode != "measured" && e.mode != "modeled") f->fail("expected \"measured\" or \"modeled\", got " + io::shown(f->value()));
  }
  // 0: not known, as stores written before omitting it say it.
  if (const auto f = j.find("time_s")) e.time_s = f->number(0.0);
  if (const auto f = j.find("gbps")) e.gbps = f->number(0.0);
  if (const auto f = j.find("fraction_of_ceiling")) e.fraction_of_ceiling = f->number(0.0);
  if (const auto f = j.find("rationale")) e.rationale = f->string();
  if (const auto f = j.find("objective")) {
    e.objective = f->string();
    try {
      (void)objective_from_string(e.objective);
    } catch (const std::invalid_argument& err) {
      f->fail(err.what());
    }
  }
  if (const auto f = j.find("joules_per_launch")) e.joules_per_launch = f->number(0.0);
  if (const auto f = j.find("mean_watts")) e.mean_watts = f->number(0.0);
  if (const auto f = j.find("resources")) e.resources = kernel_resources_from_json(*f);
  if (const auto f = j.find("runner_ups")) {
    // Each as the entry's own best: a configuration and a positive time.
    for (const io::JsonFields& r : f->elements()) {
      r.require_object();
      r.at("config").require_object();
      const io::JsonFields time = r.at("time_s");
      if (!(time.number(0.0) > 0)) time.fail("must be a positive number of seconds");
      if (const auto g = r.find("gbps")) (void)g->number(0.0);
      if (const auto g = r.find("resources")) (void)kernel_resources_from_json(*g);
    }
    e.runner_ups = f->value();
  }
  if (const auto f = j.find("kernel_fingerprint")) {
    e.kernel_fingerprint = f->string();
    if (!is_digest128(e.kernel_fingerprint))
      f->fail("expected the 32 hexadecimal digits memtune writes, got " + io::shown(f->value()));
  }
  if (const auto f = j.find("tool")) e.tool = f->string();
  if (const auto f = j.find("saved_at")) e.saved_at = f->string();
  for (const auto& [name, value] : j.value().items())
    if (!kEntryFields.count(name)) e.unknown[name] = value;
  return e;
}

ProfileStore::ProfileStore(std::filesystem::path file) : file_(std::move(file)) {}

std::vector<ProfileEntry> ProfileStore::entries() const {
  try {
    const std::filesystem::path store = io::output_file(file_); // links followed: a dangling one is a new store
    std::error_code ec;
    if (!std::filesystem::exists(store, ec)) return {};
    return parse_store(io::read_text_file(store), file_.string()).entries;
  } catch (const InputError& e) {
    throw ProfileError(e);
  }
}

void ProfileStore::save(const ProfileEntry& entry) {
  update([&](std::vector<ProfileEntry>& entries) {
    std::erase_if(entries, [&](const ProfileEntry& e) { return same_profile_key(e, entry); });
    entries.push_back(entry);
  });
}

void ProfileStore::update(const std::function<void(std::vector<ProfileEntry>&)>& change) {
  try {
    io::update_file_locked(file_, io::OutputKind::profile_store, [&](const std::optional<std::string>& current) {
      StoreDocument d = parse_store(current.value_or(""), file_.string()); // throws: never overwrite it
      change(d.entries);
      nlohmann::json kept = nlohmann::json::array();
      kept.get_ref<nlohmann::json::array_t&>().reserve(d.entries.size());
      for (auto& e : d.entries) {
        // JSON has no infinity: written, it would be a null the store's reader refuses.
        const bool finite = std::isfinite(e.time_s) && std::isfinite(e.gbps) && std::isfinite(e.fraction_of_ceiling) &&
                            std::isfinite(e.joules_per_launch.value_or(0)) && std::isfinite(e.mean_watts.value_or(0));
        if (!finite)
          throw InputError(file_.string(), 0, "", "the entry for " + entry_key_text(e) +
                                                      " has a time, GB/s or energy that is not a finite number");
        kept.push_back(e.to_json());
        e = ProfileEntry{}; // its copy is in `kept`: freed as it goes, not at the end
      }
      d.root["entries"] = std::move(kept);
      d.root["schema_version"] = kSchemaVersion;
      d.root["tool"] = std::string("memtune ") + kVersion;
      return d.root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    });
  } catch (const InputError& e) {
    throw untouched(e);
  }
}

const char* to_string(ProfileMatch match) {
  switch (match) {
  case ProfileMatch::exact: return "exact";
  case ProfileMatch::nearest_size: return "nearest size";
  case ProfileMatch::same_gpu_model: return "same GPU model";
  }
  return "?";
}

std::vector<ProfileHit> ProfileStore::matches(const DeviceFingerprint& device, const std::string& template_name,
                                              const Problem& problem, const std::vector<std::string>& size_keys,
                                              const std::vector<std::string>& model_names) const {
  const auto same_model_name = [&](const std::string& name) {
    if (name == device.name) return true;
    return std::any_of(model_names.begin(), model_names.end(), [&](const std::string& other) {
      return std::equal(name.begin(), name.end(), other.begin(), other.end(),
                        [](unsigned char a, unsigned char b) { return std::tolower(a) == std::tolower(b); });
    });
  };
  // The distance of a stored problem to the one asked for, or nullopt when
  // they differ in anything but size.
  const auto distance = [&](const Problem& stored) -> std::optional<double> {
    if (stored.size() != problem.size()) return std::nullopt;
    double d = 0.0;
    for (const auto& [key, value] : problem) {
      const auto it = stored.find(key);
      if (it == stored.end()) return std::nullopt;
      const bool is_size = std::find(size_keys.begin(), size_keys.end(), key) != size_keys.end();
      if (!is_size && it->second != value) return std::nullopt;
      if (is_size) {
        if (it->second <= 0 || value <= 0) return std::nullopt; // no log scale for them
        d += std::fabs(std::log(static_cast<double>(it->second) / static_cast<double>(value)));
      }
    }
    return d;
  };
  std::vector<ProfileHit> hits;
  for (auto& e : entries()) {
    if (e.template_name != template_name) continue;
    const bool same_device = e.device == device;
    if (!same_device && !(same_model_name(e.device.name) && e.device.cc_major == device.cc_major &&
                          e.device.cc_minor == device.cc_minor))
      continue;
    const std::optional<double> d = distance(e.problem);
    if (!d) continue;
    const ProfileMatch match = !same_device ? ProfileMatch::same_gpu_model
                               : e.problem == problem ? ProfileMatch::exact
                                                      : ProfileMatch::nearest_size;
    hits.push_back({std::move(e), match, *d});
  }
  std::stable_sort(hits.begin(), hits.end(), [](const ProfileHit& a, const ProfileHit& b) {
    return a.match != b.match ? a.match < b.match : a.distance < b.distance;
  });
  return hits;
}

std::optional<ProfileHit> ProfileStore::lookup(const DeviceFingerprint& device, const std::string& template_name,
                                               const Problem& problem, const std::vector<std::string>& size_keys) const {
  std::vector<ProfileHit> hits = matches(device, template_name, problem, size_keys);
  if (hits.empty()) return std::nullopt;
  return std::move(hits.front());
}

bool same_pick(const ProfileEntry& a, const ProfileEntry& b) {
  return a.config == b.config && a.mode == b.mode && a.time_s == b.time_s;
}

std::string config_text(const nlohmann::json& config) {
  std::string s;
  for (const auto& [k, v] : config.items())
    s += (s.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
  return s;
}

std::optional<bool> same_kernel(const ProfileEntry& e, const std::string& now) {
  if (e.kernel_fingerprint.empty()) return std::nullopt;
  return e.kernel_fingerprint == now;
}

std::string entry_key_text(const ProfileEntry& e) {
  std::string problem;
  for (const auto& [k, v] : e.problem) problem += " " + k + "=" + std::to_string(v);
  return e.device.name + " (sm_" + std::to_string(e.device.cc_major) + std::to_string(e.device.cc_minor) + ", " +
         std::to_string(e.device.sm_count) + " SMs) " + e.template_name + problem;
}

ProfileEntry make_profile_entry(const TuningResult& r, std::size_t runner_ups, const std::vector<nlohmann::json>& keep) {
  const auto rank = r.ranking();
  if (rank.empty()) throw std::invalid_argument("no candidate succeeded: nothing to save");
  const Evaluation& best = r.evaluations[rank.front()];
  ProfileEntry e;
  e.device = r.device;
  e.template_name = r.template_name;
  e.problem = r.problem;
  e.config = r.space.config_to_json(best.config);
  e.mode = r.measured ? "measured" : "modeled";
  e.time_s = best.timing->median_s;
  e.gbps = best.gbps;
  e.fraction_of_ceiling = best.fraction_of_ceiling;
  e.objective = to_string(r.ranked_by());
  if (best.energy) {
    e.joules_per_launch = best.energy->joules_per_launch;
    e.mean_watts = best.energy->mean_watts;
  }
  e.rationale = rationale(r);
  // A candidate that compiled has its ptxas figures (a modeled run compiles too).
  const auto compiled = [](const Evaluation& x) { return x.resources.registers > 0; };
  if (compiled(best)) e.resources = best.resources;
  // The fastest, then further down the ranking those `keep` names, in rank order.
  for (std::size_t i = 1; i < rank.size() && (i <= runner_ups || !keep.empty()); ++i) {
    const Evaluation& x = r.evaluations[rank[i]];
    nlohmann::json config = r.space.config_to_json(x.config);
    if (i > runner_ups && std::find(keep.begin(), keep.end(), config) == keep.end()) continue;
    e.runner_ups.push_back({{"config", std::move(config)}, {"time_s", x.timing->median_s}, {"gbps", x.gbps}});
    if (compiled(x)) e.runner_ups.back()["resources"] = kernel_resources_to_json(x.resources);
  }
  // A recording edited by hand may carry any text: an entry the store could
  // not read back is worse than one without the version.
  if (is_digest128(r.kernel_fingerprint)) e.kernel_fingerprint = r.kernel_fingerprint;
  e.tool = std::string("memtune ") + kVersion;
  e.saved_at = now_utc();
  return e;
}

} // namespace memtune
