#pragma once
// A recorded search space: every config of a space measured once on one
// device, saved as JSON, so that strategies can be compared (and tested)
// without a GPU by replaying the recorded times.
//
// {"schema_version": 1, "tool": "memtune 0.1.0", "template": "filter",
//  "problem": {"n": 16777216, "taps": 21},
//  "device": {"name": "NVIDIA H100", "compute_capability": "9.0", "sm_count": 132},
//  "space": <Space::to_json()>,
//  "trials": [{"config": {...}, "status": "ok", "time_s": 4.9e-05},
//             {"config": {...}, "status": "compile_failed", "reason": "..."}]}
//
// "problem" and "device" are kept as given (objects); trials must be valid
// configs of the space, each at most once; an "ok" trial has a positive
// time_s, a failed one has none. memtune's --record also writes
// "kernel_fingerprint" and "mode" (what exactly ran, and whether it was
// measured or modeled), and facts for reports ("target", "wall_seconds",
// "copy_ceiling_gbps", ...): read into kernel_fingerprint, mode and
// annotations, and written back as they were.
#include <memtune/io/errors.hpp>
#include <memtune/io/json_fields.hpp>
#include <memtune/search/run_search.hpp>
#include <memtune/search/space.hpp>
#include <memtune/search/strategy.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace memtune::search {

inline constexpr int kRecordingSchemaVersion = 1;

struct Recording {
  std::string tool = "memtune 0.1.0";
  std::string template_name;
  nlohmann::json problem = nlohmann::json::object();
  nlohmann::json device = nlohmann::json::object();
  std::string kernel_fingerprint; // empty: not recorded (recordings before it, imports)
  std::string mode;               // "measured", "modeled"; empty: not recorded
  // Every other top-level field, kept as given (the recording's writer's
  // facts: "target", "strategy", "wall_seconds", "copy_ceiling_gbps", ...).
  nlohmann::json annotations = nlohmann::json::object();
  Space space;
  std::vector<Trial> trials;
  // Per trial, its other keys kept as given ("joules_per_launch", "device",
  // ...): trial_annotations[i] belongs to trials[i]. Written only when there
  // is one per trial (empty: none); whoever filters or reorders trials does
  // the same to these.
  std::vector<nlohmann::json> trial_annotations;

  [[nodiscard]] nlohmann::json to_json() const;
  // Throws InputError naming the field ("trials[4].time_s: missing").
  static Recording from_json(const nlohmann::json& j);
  static Recording from_fields(const io::JsonFields& j);

  // The fastest successful trial; nullopt when none succeeded.
  [[nodiscard]] std::optional<Trial> best() const;
  // Indices into trials of the successful ones, fastest first; equal times
  // keep the trials' order (the first of them is best()).
  [[nodiscard]] std::vector<std::size_t> ranking() const;
};

// Throws InputError naming the file, the line and the field: unreadable, not
// JSON, or not a valid recording.
[[nodiscard]] Recording load_recording(const std::filesystem::path& path);
// Writes atomically (io::write_file_atomically). Throws InputError naming the
// file, without writing, when `path` exists and is not a recording (a profile
// store given by mistake is never replaced), or names a folder.
void save_recording(const Recording& recording, const std::filesystem::path& path);
// The check save_recording makes, for writers of recordings that check before
// a long run: throws InputError unless `path` is absent, empty or a recording.
void check_replaceable_recording(const std::filesystem::path& path);

// Looks trials up by config. A config the recording lacks comes back as a
// failed trial with status "not_recorded", so replay never crashes; the
// recording must outlive the objective.
[[nodiscard]] Objective replay_objective(const Recording& recording);

} // namespace memtune::search
