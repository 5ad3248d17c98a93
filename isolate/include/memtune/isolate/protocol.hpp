#pragma once
// Internal to isolation: the messages between the tuning process and a worker
// (frames: frame.hpp). One request at a time per worker; every request gets
// exactly one reply, or the worker dies (which the supervisor sees).
//
//   tuning process                          worker (memtune-worker, one GPU)
//   hello {description, problem, seed, device, measure}
//                                       ->  ready {target, pid, setup_seconds} | error {kind, message}
//   setup {references, ceiling_bytes, same_size_bytes} + the references' CUBINs
//                                       ->  setup_done {reference_error?, reference_time_s?, ceiling?, same_size_copy?,
//                                                       each part's seconds}
//   run {id, config, launch, lowered_name} + CUBIN
//                                       ->  result {id, outcome}
//   baseline {name, bytes_moved}        ->  baseline_result {baseline}
//   bye                                 ->  (exits 0)
//
// The worker rebuilds the description from the description file's path and
// text or from its data (KernelDescription::to_data(), the built-in templates'
// too), or by name from its own lookup (worker_main.hpp; memtune-worker has
// none), and refuses one whose fingerprint differs from the tuning process's. Candidates are
// compiled by the tuning process; the worker never runs NVRTC for them.
#include <memtune/isolate/candidate_launcher.hpp>

#include <memtune/measure/measure.hpp>
#include <memtune/model/target.hpp>
#include <memtune/output/tuning_result.hpp>

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <vector>
#include <string>

namespace memtune::isolation {

// 2: ready carries device_count; 3: descriptions as data; 4: setup_done times
// its parts; 5: setup carries a list of references (verify.depends_on).
inline constexpr int kProtocolVersion = 5;

// How a worker rebuilds the description the tuning process tunes.
struct DescriptionSource {
  // built_in: by name from the worker's own descriptions (memtune-worker: the
  // catalogue); file: a description file's text; data: KernelDescription::to_data()
  // (a description made in C++ whose every part is data).
  enum class Kind { built_in, file, data };
  Kind kind = Kind::built_in;
  std::string name;        // built_in: the catalogue's name; file, data: the description's name (for messages)
  std::string path;        // file: where it was read (its folder resolves relative source files); data: its origin
  std::string content;     // file: its text, as the tuning process read it; data: to_data() as JSON text
  std::string fingerprint; // KernelDescription::fingerprint() of what the tuning process tunes
};

struct Hello {
  DescriptionSource description;
  Problem problem;
  std::uint64_t seed = 1;
  int device = 0;
  MeasureOptions measure;
  std::string cache_folder; // the compile cache (for the verification kernel); empty: none
};

struct Ready {
  Target target;
  long pid = 0;
  double setup_seconds = 0; // [seconds] from exec to ready
  int device_count = 1;      // GPUs the worker's driver reports (1 where it sees its own GPU only)
};

// Why a worker cannot serve: no GPU, a description it cannot rebuild, ...
struct WorkerError : std::runtime_error {
  enum class Kind { no_device, description, argument, setup, protocol };
  WorkerError(Kind k, const std::string& message) : std::runtime_error(message), kind(k) {}
  Kind kind;
};

struct SetupRequest {
  // One per combination of verify.depends_on's values; their cubins are the
  // frame's blob, one after another (each reference's "cubin_bytes").
  std::vector<LaunchRequest> references;
  bool time_reference = false;            // measure one reference launch (the watchdog's yardstick)
  std::size_t ceiling_bytes = 0;          // measure the copy ceiling with this many bytes; 0: not now
  std::size_t same_size_bytes = 0;        // and a copy of the kernel's own bytes; 0: not needed
  // A callback's expected values, computed now for this configuration: how
  // long that host work takes is part of the watchdog's limit.
  std::optional<search::Config> expected_for;
};

struct SetupDone {
  std::optional<std::string> reference_error;
  std::optional<double> reference_time_s;
  std::optional<CopyCeiling> ceiling;
  std::optional<CopyCeiling> same_size_copy;
  bool context_lost = false;
  // [seconds] each part, in the worker (setup_times.hpp); 0: not done.
  double inputs_seconds = 0;         // filling the inputs after ready (reported by the first setup only)
  double reference_seconds = 0;      // the reference run, with its timed launch
  double expected_seconds = 0;       // computing expected_for's expected values
  double ceiling_seconds = 0;        // measuring the copy ceiling
  double same_size_copy_seconds = 0; // measuring the same-size copy
};

// ---- JSON of the parts (also used by the journal where they are the same facts)

nlohmann::json config_values_json(const search::Config& config); // raw integers by axis
search::Config config_from_values(const nlohmann::json& j);
nlohmann::json launch_json(const LaunchSpec& launch);
LaunchSpec launch_from_json(const nlohmann::json& j);
nlohmann::json measure_json(const MeasureOptions& m);
MeasureOptions measure_from_json(const nlohmann::json& j);
nlohmann::json timing_json(const Timing& t);
Timing timing_from_json(const nlohmann::json& j);
nlohmann::json energy_json(const EnergyMeasurement& m);
EnergyMeasurement energy_from_json(const nlohmann::json& j); // range-checked: journals are read from files
nlohmann::json ceiling_json(const CopyCeiling& c);
CopyCeiling ceiling_from_json(const nlohmann::json& j);
nlohmann::json target_wire_json(const Target& t);
Target target_from_wire(const nlohmann::json& j); // no sanity checks: a driver's target may lack figures

// ---- messages (JSON part; a CUBIN travels as the frame's blob)

nlohmann::json to_json(const Hello& h);
Hello hello_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Ready& r);
Ready ready_from_json(const nlohmann::json& j);
nlohmann::json error_json(const WorkerError& e);
WorkerError error_from_json(const nlohmann::json& j);
nlohmann::json to_json(const SetupRequest& s);
// The frame's blob for `s`: its references' cubins, one after another, as
// to_json's "cubin_bytes" and setup_from_json read them.
std::vector<char> setup_blob(const SetupRequest& s);
SetupRequest setup_from_json(const nlohmann::json& j, std::span<const char> blob);
nlohmann::json to_json(const SetupDone& s);
SetupDone setup_done_from_json(const nlohmann::json& j);
nlohmann::json run_json(std::uint64_t id, const LaunchRequest& r);
LaunchRequest run_from_json(const nlohmann::json& j, std::span<const char> blob);
nlohmann::json result_json(std::uint64_t id, const LaunchOutcome& o);
LaunchOutcome outcome_from_json(const nlohmann::json& j);
nlohmann::json baseline_json(const BaselineResult& b);
BaselineResult baseline_from_json(const nlohmann::json& j);

// The message's "type"; throws ProtocolError when it has none.
std::string message_type(const nlohmann::json& j);

} // namespace memtune::isolation
