#include <memtune/io/atomic_file.hpp>
#include <memtune/io/json_document.hpp>
#include <memtune/search/recording.hpp>

#include <algorithm>
#include <limits>
#include <string_view>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

namespace memtune::search {
namespace {

// The fields Recording reads into members; every other one is an annotation.
const std::set<std::string, std::less<>> kKnownFields{"schema_version", "tool",  "template", "problem", "device",
                                                      "kernel_fingerprint", "mode", "space", "trials"};
// A trial's fields that Trial holds; the others are its annotations.
const std::set<std::string, std::less<>> kTrialFields{"config", "status", "time_s", "reason"};

Trial trial_from_fields(const Space& space, const io::JsonFields& j) {
  Trial t;
  const io::JsonFields config = j.at("config");
  try {
    t.config = space.config_from_json(config.value());
  } catch (const std::invalid_argument& e) {
    std::string why = e.what();
    if (why.rfind("config: ", 0) == 0) why.erase(0, 8); // the field already says it is the config
    config.fail(why);
  }
  try {
    if (const auto why = space.violation(t.config)) config.fail("invalid config: " + *why);
  } catch (const std::logic_error& e) { // a constraint that cannot be evaluated (overflow, division by zero)
    config.fail(e.what());
  }
  t.status = j.at("status").nonempty_string();
  if (t.status == "ok") {
    const io::JsonFields time = j.at("time_s");
    t.time_s = time.number(0.0);
    // Below a picosecond is no kernel's time (a denormal one would make its
    // GB/s infinite in every file written from it).
    if (!(*t.time_s >= 1e-12)) time.fail("must be a number of seconds of at least 1e-12 (a picosecond)");
  } else {
    if (j.has("time_s")) j.at("time_s").fail("a '" + t.status + "' trial cannot have a time");
    if (const auto reason = j.find("reason")) t.reason = reason->string();
  }
  return t;
}

// The axes a constraint's JSON names: every string of an expression ({"op":
// ..., "args": [...]}, an axis name, a number), in lhs, rhs and "if".
void collect_named_axes(const nlohmann::json& j, const char* key, std::vector<std::string>& out) {
  if (j.is_string()) {
    if (std::string_view(key) != "op" && std::string_view(key) != "cmp" && std::string_view(key) != "reason")
      out.push_back(j.get<std::string>());
  } else if (j.is_array()) {
    for (const auto& e : j) collect_named_axes(e, key, out);
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items()) collect_named_axes(v, k.c_str(), out);
  }
}

// A constraint over an axis the space lacks would throw on every config it
// is evaluated on; say which constraint, where, once.
void check_constraint_axes(const Space& space, const io::JsonFields& space_fields) {
  for (std::size_t i = 0; i < space.constraints().size(); ++i) {
    std::vector<std::string> named;
    collect_named_axes(space.constraints()[i].to_json(), "", named);
    for (const auto& name : named)
      if (std::none_of(space.axes().begin(), space.axes().end(), [&](const Axis& a) { return a.name == name; }))
        space_fields.at("constraints").at(i).fail("names axis '" + name + "', which the space does not have");
  }
}

} // namespace

nlohmann::json Recording::to_json() const {
  nlohmann::json trials_json = nlohmann::json::array();
  // Annotations that do not pair one to one with the trials (a copy whose
  // trials were filtered alone) are not written rather than misattributed.
  const bool annotated = trial_annotations.size() == trials.size();
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    nlohmann::json jt = annotated && trial_annotations[i].is_object() ? trial_annotations[i] : nlohmann::json::object();
    jt.update(nlohmann::json{{"config", space.config_to_json(t.config)}, {"status", t.ok() ? std::string("ok") : t.status}});
    if (t.ok()) jt["time_s"] = *t.time_s;
    else if (!t.reason.empty()) jt["reason"] = t.reason;
    trials_json.push_back(std::move(jt));
  }
  nlohmann::json j = annotations;
  j.update(nlohmann::json{{"schema_version", kRecordingSchemaVersion},
                          {"tool", tool},
                          {"template", template_name},
                          {"problem", problem},
                          {"device", device},
                          {"space", space.to_json()},
                          {"trials", std::move(trials_json)}});
  if (!kernel_fingerprint.empty()) j["kernel_fingerprint"] = kernel_fingerprint;
  if (!mode.empty()) j["mode"] = mode;
  return j;
}

Recording Recording::from_json(const nlohmann::json& j) { return from_fields(io::JsonFields(j)); }

Recording Recording::from_fields(const io::JsonFields& j) {
  j.require_object();
  const io::JsonFields version = j.at("schema_version");
  if (version.integer<int>() != kRecordingSchemaVersion)
    version.fail("unsupported schema_version " + io::shown(version.value()) + " (this build reads " +
                 std::to_string(kRecordingSchemaVersion) + ")");
  Recording r;
  r.tool = j.has("tool") ? j.at("tool").string() : std::string{};
  r.template_name = j.at("template").nonempty_string();
  for (const char* key : {"problem", "device"})
    if (const auto f = j.find(key)) f->require_object();
  r.problem = j.has("problem") ? j.at("problem").value() : nlohmann::json::object();
  r.device = j.has("device") ? j.at("device").value() : nlohmann::json::object();
  if (const auto device = j.find("device")) {
    // The fields readers take from it (report, --from, merge): checked here,
    // once, so that an SM count of 2^32 + 132 or "many" is an error everywhere.
    if (const auto f = device->find("name")) (void)f->nonempty_string();
    if (const auto f = device->find("compute_capability")) (void)f->nonempty_string();
    if (const auto f = device->find("sm_count")) (void)f->integer<int>(1, 1 << 16);
  }
  if (const auto f = j.find("kernel_fingerprint")) r.kernel_fingerprint = f->string();
  if (const auto f = j.find("mode")) r.mode = f->nonempty_string();
  for (const auto& [key, value] : j.value().items())
    if (!kKnownFields.contains(key)) r.annotations[key] = value;
  const io::JsonFields space = j.at("space");
  // Space::from_json converts axis values with nlohmann's get<int64_t>, which
  // is undefined for a float out of range (found by fuzz_recording): check first.
  // Its other members' types too, so that an error names the field rather
  // than quoting nlohmann ("cannot use at() with null").
  for (const io::JsonFields& axis : space.at("axes").elements()) {
    (void)axis.at("name").nonempty_string();
    if (const auto values = axis.find("values"))
      for (const io::JsonFields& value : values->elements()) (void)value.integer<std::int64_t>();
    if (const auto labels = axis.find("labels"))
      for (const io::JsonFields& label : labels->elements()) (void)label.string();
  }
  if (const auto pruned = space.find("pruned"))
    for (const io::JsonFields& p : pruned->elements()) (void)p.at("name").string(), (void)p.at("reason").string();
  if (const auto shard = space.find("shard")) {
    (void)shard->at("index").integer<std::uint64_t>(1);
    (void)shard->at("count").integer<std::uint64_t>(1);
  }
  try {
    r.space = Space::from_json(space.value());
  } catch (const std::logic_error& e) { // invalid_argument, out_of_range, domain_error: a space that makes no sense
    space.fail(e.what());
  }
  check_constraint_axes(r.space, space);
  std::set<Config> seen;
  for (const io::JsonFields& trial : j.at("trials").elements()) {
    Trial t = trial_from_fields(r.space, trial);
    if (!seen.insert(t.config).second)
      trial.at("config").fail("config " + r.space.format(t.config) + " is recorded twice");
    r.trials.push_back(std::move(t));
    nlohmann::json others = nlohmann::json::object(); // a trial is an object: trial_from_fields read its config
    for (const auto& [key, value] : trial.value().items())
      if (!kTrialFields.contains(key)) others[key] = value;
    r.trial_annotations.push_back(std::move(others));
  }
  return r;
}

std::optional<Trial> Recording::best() const {
  const std::vector<std::size_t> rank = ranking();
  if (rank.empty()) return std::nullopt;
  return trials[rank.front()];
}

std::vector<std::size_t> Recording::ranking() const {
  std::vector<std::size_t> rank;
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].ok()) rank.push_back(i);
  std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return *trials[a].time_s < *trials[b].time_s; });
  return rank;
}

Recording load_recording(const std::filesystem::path& path) {
  const io::JsonDocument doc = io::read_json_file(path);
  return doc.read([](const io::JsonFields& root) { return Recording::from_fields(root); });
}

void check_replaceable_recording(const std::filesystem::path& path) {
  (void)io::check_output(path, io::OutputKind::recording);
}

void save_recording(const Recording& recording, const std::filesystem::path& path) {
  io::write_file_atomically(path, recording.to_json().dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                            io::OutputKind::recording);
}

Objective replay_objective(const Recording& recording) {
  auto table = std::make_shared<std::map<Config, Trial>>();
  for (const Trial& t : recording.trials) table->emplace(t.config, t);
  return [table, &recording](const Config& config) {
    const auto it = table->find(config);
    if (it != table->end()) return it->second;
    Trial missing;
    missing.config = config;
    missing.status = "not_recorded";
    missing.reason = "the recording has no trial for " + recording.space.format(config);
    return missing;
  };
}

} // namespace memtune::search
