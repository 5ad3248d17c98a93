#pragma once
// The local GPU for an application: its context and description, choosing a
// kernel's configuration at start-up (config_lookup.hpp: MEMTUNE_CONFIG, the
// profile, tuning, the default) and loading it. Applications launch through
// TunedKernel (tuned_kernel.hpp), which uses this; Choice is what it loads.
//
//   memtune::Session session;                          // the local GPU, or DeviceRequired
//   memtune::ProfileStore store{"app.memtune.json"};   // created on first save
//   memtune::Choice choice = session.tune_or_load(memtune::templates::filter_description(),
//                                                 {{"n", n}, {"taps", 21}}, &store);
//   std::cout << choice.origin << ": " << choice.rationale << "\n";
//
// Environment: MEMTUNE_CONFIG='{"block_size":256,...}' pins a configuration;
// MEMTUNE_NO_TUNE=1 never tunes (a profile entry, else the description's default).
// A value that does not parse is an InputError naming the variable
// (config_lookup.hpp).
#include <memtune/launch/config_lookup.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/profile/profile_store.hpp>
#include <memtune/tune/tuner.hpp>

#include <memory>
#include <string>

namespace memtune {

// [seconds] what choosing a configuration cost: the start-up budget's items.
struct ChoiceTimings {
  double lookup = 0.0; // MEMTUNE_CONFIG, the profile store (read, parse, match), the space
  double tuning = 0.0; // measuring candidates (0 unless the lookup said tune)
  double load = 0.0;   // compile (a cache hit reads the CUBIN), load the module, find the function
};

// A configuration chosen for a problem, compiled and loaded, ready to launch.
struct Choice {
  search::Config config;
  // "MEMTUNE_CONFIG", "profile", "profile (nearest size: n=1048576)",
  // "profile (same GPU model, 114 SMs: n=1048576)", "tuned", "default"
  std::string origin;
  std::string rationale;  // why this configuration (from the tuning run or the profile)
  std::string formatted;  // the configuration for people: "block_size=256 packing=1 ..."
  LaunchSpec launch;      // grid/block/shared memory for the problem it was chosen for
  Target target;          // the GPU it was loaded for
  std::shared_ptr<cuda::Module> module;
  CUfunction function = nullptr;
  ChoiceTimings seconds;
};

class Session {
public:
  explicit Session(int device = 0); // throws DeviceRequired without a GPU
  [[nodiscard]] const Target& target() const { return target_; }
  [[nodiscard]] DeviceFingerprint device() const { return fingerprint(target_); }
  [[nodiscard]] int ordinal() const { return ordinal_; }
  // Makes the session's context (the device's primary context, which the
  // CUDA runtime uses too) current on the calling thread.
  void make_current() const { context_.make_current(); }

  // Measures the kernel's space (see tune() in tuner.hpp).
  TuningResult tune(const KernelDescription& kernel, const Problem& problem, TuneOptions options = {}) const;

  // The configuration for this GPU and problem as look_up_config decides
  // (MEMTUNE_CONFIG, the store's entries, tuning, the default; `store` may be
  // null: no lookup, nothing saved), compiled through the disk cache and
  // loaded. A tuned result is saved when options.save. When tuning finds
  // nothing that works, the description's default.
  Choice tune_or_load(const KernelDescription& kernel, const Problem& problem, ProfileStore* store,
                      const LauncherOptions& options = {}) const;

  // Compiles (through the disk cache of options.cache_folder unless
  // !options.use_cache) and loads one configuration. Throws
  // std::invalid_argument for a configuration that is not valid here,
  // std::runtime_error when it does not compile, DescriptionError when the
  // description's arguments do not match the kernel's parameters.
  Choice load(const KernelDescription& kernel, const Problem& problem, const search::Config& config,
              std::string origin, std::string rationale, const TuneOptions& options = {}) const;

private:
  int ordinal_;
  cuda::Context context_;
  Target target_;
};

} // namespace memtune
