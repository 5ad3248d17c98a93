#include <memtune/search/recording.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

namespace memtune::search {
namespace {

const nlohmann::json& require(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw std::invalid_argument(where + ": missing '" + key + "'");
  return j.at(key);
}

Trial trial_from_json(const Space& space, const nlohmann::json& j, const std::string& where) {
  Trial t;
  const auto& config = require(j, "config", where);
  try {
    t.config = space.config_from_json(config);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  if (const auto why = space.violation(t.config)) throw std::invalid_argument(where + ": invalid config: " + *why);
  const auto& status = require(j, "status", where);
  if (!status.is_string() || status.get<std::string>().empty())
    throw std::invalid_argument(where + ": 'status' must be a non-empty string");
  t.status = status.get<std::string>();
  if (t.status == "ok") {
    const auto& time = require(j, "time_s", where);
    if (!time.is_number() || !(time.get<double>() > 0.0) || !std::isfinite(time.get<double>()))
      throw std::invalid_argument(where + ": 'time_s' must be a positive number of seconds");
    t.time_s = time.get<double>();
  } else {
    if (j.contains("time_s")) throw std::invalid_argument(where + ": a '" + t.status + "' trial cannot have a time");
    if (j.contains("reason")) {
      if (!j.at("reason").is_string()) throw std::invalid_argument(where + ": 'reason' must be a string");
      t.reason = j.at("reason").get<std::string>();
    }
  }
  return t;
}

} // namespace

nlohmann::json Recording::to_json() const {
  nlohmann::json trials_json = nlohmann::json::array();
  for (const Trial& t : trials) {
    nlohmann::json jt{{"config", space.config_to_json(t.config)}, {"status", t.ok() ? std::string("ok") : t.status}};
    if (t.ok()) jt["time_s"] = *t.time_s;
    else if (!t.reason.empty()) jt["reason"] = t.reason;
    trials_json.push_back(std::move(jt));
  }
  return {{"schema_version", kRecordingSchemaVersion},
          {"tool", tool},
          {"template", template_name},
          {"problem", problem},
          {"device", device},
          {"space", space.to_json()},
          {"trials", std::move(trials_json)}};
}

Recording Recording::from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("expected a JSON object at the top level");
  const auto& version = require(j, "schema_version", "recording");
  if (!version.is_number_integer() || version.get<int>() != kRecordingSchemaVersion)
    throw std::invalid_argument("unsupported schema_version " + version.dump() + " (this build reads " +
                                std::to_string(kRecordingSchemaVersion) + ")");
  Recording r;
  try {
    r.tool = j.value("tool", std::string{});
    r.template_name = require(j, "template", "recording").get<std::string>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument("'tool' and 'template' must be strings");
  }
  r.problem = j.value("problem", nlohmann::json::object());
  r.device = j.value("device", nlohmann::json::object());
  if (!r.problem.is_object() || !r.device.is_object())
    throw std::invalid_argument("'problem' and 'device' must be objects");
  r.space = Space::from_json(require(j, "space", "recording"));
  const auto& trials = require(j, "trials", "recording");
  if (!trials.is_array()) throw std::invalid_argument("'trials' must be an array");
  std::set<Config> seen;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const std::string where = "trial " + std::to_string(i);
    Trial t = trial_from_json(r.space, trials[i], where);
    if (!seen.insert(t.config).second)
      throw std::invalid_argument(where + ": config " + r.space.format(t.config) + " is recorded twice");
    r.trials.push_back(std::move(t));
  }
  return r;
}

std::optional<Trial> Recording::best() const {
  std::optional<Trial> best;
  for (const Trial& t : trials)
    if (t.ok() && (!best || *t.time_s < *best->time_s)) best = t;
  return best;
}

Recording load_recording(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open the recording");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(s);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, s.size());
    const auto line = 1 + std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(end), '\n');
    throw std::runtime_error(path.string() + ":" + std::to_string(line) + ": not valid JSON: " + e.what());
  }
  try {
    return Recording::from_json(j);
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": not a valid memtune recording: " + e.what());
  }
}

void save_recording(const Recording& recording, const std::filesystem::path& path) {
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp.string() + ": cannot write the recording");
    out << recording.to_json().dump(1) << '\n';
    if (!out.flush()) throw std::runtime_error(tmp.string() + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error(path.string() + ": cannot replace the recording: " + ec.message());
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
