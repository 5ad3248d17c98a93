#pragma once
// Kernel Tuner's files as memtune recordings (search/recording.hpp), and back:
//
//  * a cache file (tune_kernel(..., cache="x.json")): {"device_name",
//    "kernel_name", "problem_size", "tune_params_keys", "tune_params",
//    "objective", "cache": {"128,4": {"block_size_x": 128, ..., "time": 0.05
//    [ms], ...}}}; a failed configuration has "__error__":
//    "CompilationFailedConfig" | "InvalidConfig" | "RuntimeFailedConfig" and
//    no "time" (Kernel Tuner 1.x; earlier versions wrote the kind as the
//    "time", which memtune writes, as every version reads it); Kernel Tuner
//    appends entries while it tunes, so a cache of a run still going or
//    interrupted has no closing brackets (read as Kernel Tuner reads it);
//  * a T4 results file (tune_kernel(..., output_file=...)): {"schema_version":
//    "1.0.0", "results": [{"configuration": {...}, "invalidity": "correct" |
//    "compile" | "runtime" | "constraints", "measurements": [{"name": "time",
//    "value": 0.05, "unit": "ms"}], ...}]}, in evaluation order.
//
// Integer-valued parameters become ordinal axes; any other (strings, floats,
// booleans) categorical axes whose labels are the values as written (0.5,
// true); on export a label that reads as a number or boolean is written as
// one, so floats stay floats. Times are milliseconds in Kernel Tuner and
// seconds in memtune. Failures map as compile_failed <->
// CompilationFailedConfig / "compile", exceeds_device_limits <->
// InvalidConfig / "constraints", launch_failed <-> RuntimeFailedConfig (or
// ErrorConfig) / "runtime", wrong_result <- "correctness"; memtune's
// wrong_result and timeout -> RuntimeFailedConfig. Any other marker is an
// error naming the entry.
#include <memtune/search/recording.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace memtune::cli {

struct ImportOptions {
  std::string template_name;  // empty: the cache's kernel_name, else "kernel"
  std::string device_name;    // empty: the cache's device_name (T4: "unknown device")
};

// Throws std::invalid_argument saying what is missing or wrong (which entry, which key).
[[nodiscard]] search::Recording recording_from_kernel_tuner_cache(const std::string& text, const ImportOptions& options);
[[nodiscard]] search::Recording recording_from_t4(const nlohmann::ordered_json& doc, const ImportOptions& options);
// Either kind, told apart by its keys ("cache" or "results").
[[nodiscard]] search::Recording recording_from_kernel_tuner(const std::string& text, const ImportOptions& options);

// A cache Kernel Tuner loads (e.g. in simulation mode) for this recording.
[[nodiscard]] nlohmann::ordered_json kernel_tuner_cache(const search::Recording& recording);

} // namespace memtune::cli
