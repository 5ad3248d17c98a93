#pragma once
// The catalogue of GPU targets: configs/targets/<name>.json, one file a GPU.
//
//   auto dir = memtune::model::resolve_targets_dir({prefix / "share/memtune/targets"});
//   auto catalog = memtune::model::TargetCatalog::load_directory(dir);
//   const memtune::Target& k20 = catalog.find("K20");   // also "Tesla K20c", "k20c"
//
// A file carries "schema_version" (currently 1), every field of memtune::Target
// and a "sources" object naming the public source of each figure. Any problem
// (JSON syntax, missing field, wrong type, nonsensical value, unknown field)
// is a TargetFileError naming the file and the field.
#include <memtune/io/errors.hpp>
#include <memtune/model/target.hpp>

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace memtune::model {

// The schema_version this loader reads. Bump it when a field changes meaning.
inline constexpr int target_schema_version = 1;

// A target file that cannot be used. what(): "<file>:<line>: field 'sm_count': must be > 0 (got 0)"
// or "<file>:7: not valid JSON (line 7, column 3): ...". field() is empty for syntax errors.
class TargetFileError : public InputError {
public:
  TargetFileError(std::string file, std::string field, const std::string& message);
  explicit TargetFileError(const InputError& located) : InputError(located) {}
};

// A name that matches no target. what() lists every known name.
class UnknownTargetError : public ArgumentError {
public:
  UnknownTargetError(std::string requested, std::vector<std::string> known);
  [[nodiscard]] const std::string& requested() const { return requested_; }
  [[nodiscard]] const std::vector<std::string>& known() const { return known_; }
private:
  std::string requested_;
  std::vector<std::string> known_;
};

// Parses one target description. `origin` names it in errors and lands in Target::origin.
// Throws TargetFileError.
[[nodiscard]] Target parse_target(const nlohmann::json& j, const std::string& origin);
// Reads and parses one file. Throws TargetFileError (also when the file cannot be read).
[[nodiscard]] Target load_target_file(const std::filesystem::path& file);

// Problems that make a Target unusable by the model, one line each naming the
// field ("sm_count: must be > 0 (got 0)"); empty when the target is sane. Used by
// the loader and usable on targets read from the driver.
[[nodiscard]] std::vector<std::string> target_problems(const Target& t);

// The directory of target files: $MEMTUNE_TARGETS_DIR when set (it must then
// exist), otherwise the first existing directory of `candidates` (the build
// passes the source tree's configs/targets, then <prefix>/share/memtune/targets).
// Throws std::runtime_error naming every place it looked.
[[nodiscard]] std::filesystem::path resolve_targets_dir(const std::vector<std::filesystem::path>& candidates);

class TargetCatalog {
public:
  // Loads every *.json in `dir` (sorted by name). Throws TargetFileError on the
  // first bad file, and std::runtime_error when two targets claim the same name
  // or alias, or when the directory has no target.
  static TargetCatalog load_directory(const std::filesystem::path& dir);

  [[nodiscard]] const std::vector<Target>& targets() const { return targets_; }
  [[nodiscard]] std::vector<std::string> names() const;
  [[nodiscard]] const std::filesystem::path& directory() const { return dir_; }

  // Case-insensitive match on name, display_name or an alias, ignoring spaces,
  // '-' and '_' ("H100", "h100 sxm", "Tesla K20c" all match). "h100" names the
  // SXM part (h100-sxm): the one NVIDIA's Hopper whitepaper describes.
  // Throws UnknownTargetError listing names().
  [[nodiscard]] const Target& find(std::string_view name) const;
  [[nodiscard]] const Target* try_find(std::string_view name) const;

private:
  std::filesystem::path dir_;
  std::vector<Target> targets_;
};

// The comparison key used by find(): lower case, without ' ', '-', '_'.
[[nodiscard]] std::string normalize_target_name(std::string_view name);

} // namespace memtune::model
