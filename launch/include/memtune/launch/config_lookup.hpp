#pragma once
// Where an application's configuration of a kernel comes from, for one
// problem on one GPU. Decided without a GPU (the target is a description of
// it), so the chain is testable anywhere; KernelLauncher and
// Session::tune_or_load act on the decision (tune, load, launch).
//
// In order, the first that applies:
//   1. MEMTUNE_CONFIG, pinned: a configuration as JSON, {"block_size": 128, ...}
//      for every kernel, or keyed by kernel name, {"filter": {...}, "dot": {...}}.
//      Parameters left out take the description's default; ones pruned on
//      this GPU are dropped. A pinned configuration that does not parse or is
//      not valid here is an InputError naming the variable and the parameter
//      ("MEMTUNE_CONFIG: field 'filter.block_size': 100 is not a value of
//      'block_size' for filter (n=1000 taps=21) on NVIDIA H100 80GB HBM3"),
//      never ignored.
//   2. the profile store (ProfileStore::matches): the exact entry; else, for
//      a size between two stored sizes (a sweep, `memtune sweep`), the
//      configuration best by interpolated ranking between the two
//      (size_rule.hpp, with its expected loss); else this GPU at the nearest
//      problem size (log scale), then the same GPU model at the nearest size
//      (each tried for interpolation first as well). Interpolation ranks only
//      configurations valid for this problem here; a nearer size whose best is
//      not valid here gives its fastest runner-up that is. The first hit with a
//      valid configuration is taken; the others are listed in
//      ConfigLookup::skipped.
//   3. tuning within LauncherOptions::tune, unless MEMTUNE_NO_TUNE (set, not
//      "0") or LauncherOptions::allow_tuning is false;
//   4. the description's default configuration.
//
//   const ConfigLookup l = look_up_config(kernel, kernel.complete(problem), target, &store, {},
//                                         LookupEnvironment::from_process());
//   l.source == ConfigLookup::Source::profile; l.origin == "profile (nearest size: n=1048576)"
#include <memtune/description/kernel_description.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/profile/size_rule.hpp>
#include <memtune/tune/tuner.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace memtune {

// What an application allows at start-up.
struct LauncherOptions {
  TuneOptions tune;          // what tuning may spend (e.g. strategy "random", budget 40), and the compile cache
  bool allow_tuning = true;  // false: never tune (as MEMTUNE_NO_TUNE=1)
  bool save = true;          // save a tuned result in the store (when there is one)
  // [bytes] every buffer the caller passes must be aligned to this: the tuned
  // configuration may use vector accesses up to 16 bytes (tuning ran on
  // cuMemAlloc's 256-byte aligned buffers), and the profile may pick another
  // configuration tomorrow. Lower it only for a kernel that needs less.
  std::size_t buffer_alignment = 16;
};

// The environment variables the lookup honours.
struct LookupEnvironment {
  std::optional<std::string> pinned; // MEMTUNE_CONFIG's text, when set and not empty
  bool no_tune = false;              // MEMTUNE_NO_TUNE=1
  [[nodiscard]] static LookupEnvironment from_process();
};

// MEMTUNE_NO_TUNE's value: unset, "" or "0" false, "1" true, anything else
// an InputError naming the variable.
[[nodiscard]] bool tuning_disabled(const char* text);

struct ConfigLookup {
  enum class Source { pinned, profile, tune, default_config };
  Source source = Source::default_config;
  search::Config config; // empty when source == tune
  // For people: "MEMTUNE_CONFIG", "profile", "profile (nearest size: n=1048576)",
  // "profile (same GPU model, 114 SMs: n=1048576)", "default".
  std::string origin;
  std::string rationale;                // why this configuration
  std::optional<ProfileHit> profile;    // source == profile: the entry used (the nearer neighbour when interpolated)
  std::optional<SizePick> between;      // source == profile between two stored sizes: the interpolation
  std::vector<std::string> skipped;     // profile entries passed over, and why
  // For people: a MEMTUNE_CONFIG key two edits from this kernel's name; a
  // profile entry tuned for another version of the kernel.
  std::vector<std::string> notes;
};

// `problem` must be complete (KernelDescription::complete). Throws
// InputError (file "MEMTUNE_CONFIG") for a pinned configuration that does not
// parse or is not valid here, and ProfileError for a store that does not parse.
[[nodiscard]] ConfigLookup look_up_config(const KernelDescription& kernel, const Problem& problem, const Target& target,
                                          const ProfileStore* store, const LauncherOptions& options,
                                          const LookupEnvironment& environment);

// What the rule between swept sizes (size_rule.hpp) asks of `kernel` on
// `target`: the configuration a problem's space keeps for a stored one, and the
// model's time for it there from the resources its profile entry kept (empty
// when the kernel has no model). The two share one space per problem.
// `kernel` must outlive them.
struct SizeRuleModel {
  KeptAtProblem kept;
  PredictAt predict;
};
[[nodiscard]] SizeRuleModel size_rule_model(const KernelDescription& kernel, const Target& target);

// MEMTUNE_CONFIG's configuration for one kernel.
struct PinnedConfig {
  nlohmann::json values; // {"block_size": 128, ...}
  std::string field;     // where it is in the variable: "" (for every kernel) or the kernel's key
};
// The configuration MEMTUNE_CONFIG's `text` pins for `kernel`, or nullopt when
// the text is keyed by kernel name and names other kernels only; then a key
// within two edits of `kernel` ("filtr" for filter, or daxpy beside saxpy)
// is described in `near_miss`, since it may be a typo or another kernel.
// Throws InputError (file "MEMTUNE_CONFIG") when the text is not JSON, or
// not an object, or has a key twice.
[[nodiscard]] std::optional<PinnedConfig> pinned_config(const std::string& text, const std::string& kernel,
                                                        std::string* near_miss = nullptr);

} // namespace memtune
