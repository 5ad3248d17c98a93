#pragma once
// Profiles: the tuned configuration an application loads at start-up.
//
// One JSON document (schema_version, tool) of entries keyed by the device
// fingerprint (name, compute capability, SM count), the template and the
// problem. Lookup is by exact key, then by the nearest problem size for the
// same device, template and non-size parameters, then by the same GPU model. Writes lock the store and
// replace it atomically (io::update_file_locked: temporary file, fsync,
// rename), so processes saving at once, or killed while saving, lose nothing.
// A store that does not parse is an error naming the file, the line and the
// field, and is never overwritten.
#include <memtune/compile/compile_request.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/io/errors.hpp>
#include <memtune/io/json_fields.hpp>
#include <memtune/description/problem.hpp>
#include <memtune/output/tuning_result.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace memtune {

struct ProfileEntry {
  DeviceFingerprint device;
  std::string template_name;
  Problem problem;
  nlohmann::json config;        // as Space::config_to_json writes it
  std::string mode = "measured"; // or "modeled"
  double time_s = 0.0;          // [seconds] median
  double gbps = 0.0;            // [GB/s]
  double fraction_of_ceiling = 0.0;
  std::string objective = "time";  // what the pick minimised (objective.hpp)
  std::optional<double> joules_per_launch; // [J] when the run measured energy
  std::optional<double> mean_watts;        // [W] likewise
  std::string rationale;
  // The best's compiled resources (registers, shared memory, spills), and each
  // runner-up's under its own "resources": what the model needs to predict a
  // kept configuration at another size without compiling it (size_rule.hpp).
  // Stores written before lack them: nullopt.
  std::optional<KernelResources> resources;
  nlohmann::json runner_ups = nlohmann::json::array(); // [{config, time_s, gbps, resources}]
  // KernelDescription::fingerprint() of the kernel tuned (its description
  // and source text): a launcher whose kernel has another one says the entry
  // was tuned for another version. Empty in stores written before.
  std::string kernel_fingerprint;
  std::string tool;             // "memtune 0.1.0"
  std::string saved_at;         // ISO 8601 UTC
  // Members this memtune does not know (written by a newer one, or by hand):
  // kept as they are when the store is rewritten.
  nlohmann::json unknown = nlohmann::json::object();

  [[nodiscard]] nlohmann::json to_json() const;
  // Throws InputError naming the field ("device.sm_count: expected an integer ...").
  static ProfileEntry from_json(const nlohmann::json& j);
  static ProfileEntry from_fields(const io::JsonFields& entry);
};

// How a stored entry matched a lookup, best first.
enum class ProfileMatch {
  exact,          // this device (name, compute capability, SM count), this problem
  nearest_size,   // this device, the nearest problem size
  same_gpu_model, // same name and compute capability, another SM count; nearest size
};
[[nodiscard]] const char* to_string(ProfileMatch match); // "exact", "nearest size", "same GPU model"

struct ProfileHit {
  ProfileEntry entry;
  ProfileMatch match = ProfileMatch::exact;
  double distance = 0.0; // sum of |log(size ratio)| over the size variables
};

// The store's key: same device fingerprint, template and problem.
[[nodiscard]] bool same_profile_key(const ProfileEntry& a, const ProfileEntry& b);
// The same pick: configuration, mode and time (what an application loads;
// the date and the tool may differ).
[[nodiscard]] bool same_pick(const ProfileEntry& a, const ProfileEntry& b);

// Whether `e` timed the kernel whose fingerprint (KernelDescription::
// fingerprint()) is `now`; nullopt for an entry that does not record it.
[[nodiscard]] std::optional<bool> same_kernel(const ProfileEntry& e, const std::string& now);

// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs) filter n=16777216 taps=21"
[[nodiscard]] std::string entry_key_text(const ProfileEntry& e);
// "block_size=256 packing=1" from a profile's config object.
[[nodiscard]] std::string config_text(const nlohmann::json& config);

// A profile store that cannot be read or written: what() names the file, the
// line and the field, and says the file was left untouched.
class ProfileError : public InputError {
public:
  explicit ProfileError(const InputError& e) : InputError(e) {}
};

class ProfileStore {
public:
  explicit ProfileStore(std::filesystem::path file);

  // All entries; none when the file does not exist. Throws ProfileError for a
  // corrupt or incompatible file (or a path that names a folder).
  [[nodiscard]] std::vector<ProfileEntry> entries() const;
  // Adds the entry, replacing one with the same key. A symbolic link is
  // followed (its target is updated). Throws ProfileError, leaving the file
  // as it was, when the store does not parse or cannot be written.
  void save(const ProfileEntry& entry);
  // Read-modify-write under the store's lock: `change` gets every entry and
  // edits the list (merge, prune); the store is then replaced atomically. A
  // corrupt store throws ProfileError before `change` runs and is left
  // untouched; so is the store when `change` throws. Creates a missing store.
  void update(const std::function<void(std::vector<ProfileEntry>&)>& change);
  // Every entry usable for this device, template and problem, best first:
  // the exact key, then the same device at the nearest size, then the same
  // GPU model (same name and compute capability, another SM count: a MIG
  // slice, a partitioned or a different board of the model) at the nearest
  // size. Nearest is the sum over size_keys (the problem's size variables,
  // e.g. {"n"}) of |log(size ratio)|; every other problem variable must be
  // equal. A caller takes the first whose configuration is still valid.
  // `model_names`: other names of the device's GPU model (the catalogue
  // entry's name, display name and aliases); an entry saved under
  // one of them with the same compute capability is the same GPU model too,
  // so an entry tuned with `--target h100-sxm` on a machine without a GPU
  // serves the H100 whose driver says "NVIDIA H100 80GB HBM3".
  [[nodiscard]] std::vector<ProfileHit> matches(const DeviceFingerprint& device, const std::string& template_name,
                                                const Problem& problem, const std::vector<std::string>& size_keys,
                                                const std::vector<std::string>& model_names = {}) const;
  // The first of matches(); nullopt when nothing matches.
  [[nodiscard]] std::optional<ProfileHit> lookup(const DeviceFingerprint& device, const std::string& template_name,
                                                 const Problem& problem,
                                                 const std::vector<std::string>& size_keys) const;

  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

private:
  std::filesystem::path file_;
};

// The runner-ups every profile entry keeps, whichever command wrote it (a
// run's --save, a sweep, memtune merge --save): the per-call rule between two
// sizes models and interpolates the configurations both entries hold, and
// with 5 a merged or single-run entry often shared none with its neighbour.
inline constexpr std::size_t kProfileRunnerUps = 16;

// The entry for a tuning run's best configuration with its `runner_ups`
// fastest runner-ups, and further down the ranking the configurations `keep`
// names (as saved: Space::config_to_json) where the run timed them: a sweep
// keeps the other sizes' bests, which the per-call rule between two sizes
// needs timed at both. Runner-ups stay in rank order. Throws
// std::invalid_argument when the run has no successful candidate.
ProfileEntry make_profile_entry(const TuningResult& result, std::size_t runner_ups = kProfileRunnerUps,
                                const std::vector<nlohmann::json>& keep = {});

} // namespace memtune
