#include <memtune/profile_store.hpp>
#include <memtune/version.hpp>

#include "utc_time.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>

namespace memtune {
namespace {

std::string now_utc() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

// An exclusive advisory lock on "<store>.lock", held for a read-modify-write.
class FileLock {
public:
  explicit FileLock(const std::filesystem::path& store) {
    const std::string path = store.string() + ".lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw ProfileError("cannot create the lock file " + path);
    if (::flock(fd_, LOCK_EX) != 0) {
      ::close(fd_);
      throw ProfileError("cannot lock " + path);
    }
  }
  ~FileLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

private:
  int fd_ = -1;
};

bool same_key(const ProfileEntry& a, const ProfileEntry& b) {
  return a.device == b.device && a.template_name == b.template_name && a.problem == b.problem;
}

} // namespace

nlohmann::json ProfileEntry::to_json() const {
  return {{"device", device.to_json()}, {"template", template_name}, {"problem", problem},
          {"config", config},           {"mode", mode},              {"time_s", time_s},
          {"gbps", gbps},               {"fraction_of_ceiling", fraction_of_ceiling},
          {"rationale", rationale},     {"runner_ups", runner_ups},  {"tool", tool},
          {"saved_at", saved_at}};
}

ProfileEntry ProfileEntry::from_json(const nlohmann::json& j) {
  ProfileEntry e;
  const char* field = "entry";
  try {
    field = "device";
    e.device = DeviceFingerprint::from_json(j.at("device"));
    field = "template";
    e.template_name = j.at("template").get<std::string>();
    field = "problem";
    e.problem = j.at("problem").get<Problem>();
    field = "config";
    e.config = j.at("config");
    if (!e.config.is_object()) throw std::invalid_argument("must be an object");
    field = "time_s";
    e.time_s = j.value("time_s", 0.0);
    field = "mode";
    e.mode = j.value("mode", std::string("measured"));
    e.gbps = j.value("gbps", 0.0);
    e.fraction_of_ceiling = j.value("fraction_of_ceiling", 0.0);
    e.rationale = j.value("rationale", std::string{});
    e.runner_ups = j.value("runner_ups", nlohmann::json::array());
    e.tool = j.value("tool", std::string{});
    e.saved_at = j.value("saved_at", std::string{});
  } catch (const std::exception& ex) {
    throw std::invalid_argument(std::string("field '") + field + "': " + ex.what());
  }
  return e;
}

ProfileStore::ProfileStore(std::filesystem::path file) : file_(std::move(file)) {}

nlohmann::json ProfileStore::read_document() const {
  std::ifstream in(file_);
  if (!in) {
    if (std::filesystem::exists(file_)) throw ProfileError("cannot read profile store " + file_.string());
    return {{"schema_version", kSchemaVersion}, {"entries", nlohmann::json::array()}};
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t upto = std::min(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upto), '\n');
    throw ProfileError("profile store " + file_.string() + " is not valid JSON (line " + std::to_string(line) +
                       "): " + e.what() + ". The file was left untouched; fix or move it.");
  }
  if (!doc.is_object() || !doc.contains("entries") || !doc.at("entries").is_array())
    throw ProfileError("profile store " + file_.string() + " has no \"entries\" array. The file was left untouched.");
  const int version = doc.value("schema_version", 0);
  if (version != kSchemaVersion)
    throw ProfileError("profile store " + file_.string() + " has schema_version " + std::to_string(version) +
                       "; this memtune reads version " + std::to_string(kSchemaVersion) + ".");
  return doc;
}

std::vector<ProfileEntry> ProfileStore::entries() const {
  const nlohmann::json doc = read_document();
  std::vector<ProfileEntry> out;
  std::size_t index = 0;
  for (const auto& j : doc.at("entries")) {
    try {
      out.push_back(ProfileEntry::from_json(j));
    } catch (const std::invalid_argument& e) {
      throw ProfileError("profile store " + file_.string() + ", entry " + std::to_string(index) + ": " + e.what());
    }
    ++index;
  }
  return out;
}

void ProfileStore::save(const ProfileEntry& entry) {
  if (file_.has_parent_path()) std::filesystem::create_directories(file_.parent_path());
  FileLock lock(file_);
  nlohmann::json doc = read_document(); // throws on a corrupt store: never overwrite it
  nlohmann::json kept = nlohmann::json::array();
  for (const auto& j : doc.at("entries"))
    if (!same_key(ProfileEntry::from_json(j), entry)) kept.push_back(j);
  kept.push_back(entry.to_json());
  doc["entries"] = kept;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = std::string("memtune ") + kVersion;

  std::random_device rd;
  const std::filesystem::path tmp = file_.string() + ".tmp" + std::to_string(rd());
  {
    std::ofstream out(tmp);
    out << doc.dump(2) << "\n";
    if (!out.flush()) throw ProfileError("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file_, ec);
  if (ec) {
    std::filesystem::remove(tmp);
    throw ProfileError("cannot replace " + file_.string() + ": " + ec.message());
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
                                              const Problem& problem, const std::vector<std::string>& size_keys) const {
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
    if (!same_device && !(e.device.name == device.name && e.device.cc_major == device.cc_major &&
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

ProfileEntry make_profile_entry(const TuningResult& r, std::size_t runner_ups) {
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
  e.rationale = rationale(r);
  for (std::size_t i = 1; i < rank.size() && i <= runner_ups; ++i) {
    const Evaluation& x = r.evaluations[rank[i]];
    e.runner_ups.push_back({{"config", r.space.config_to_json(x.config)}, {"time_s", x.timing->median_s}, {"gbps", x.gbps}});
  }
  e.tool = std::string("memtune ") + kVersion;
  e.saved_at = now_utc();
  return e;
}

} // namespace memtune
