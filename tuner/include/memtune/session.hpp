#pragma once
// The library's entry point for applications: tune once, keep the result in
// a profile, load it at the next start-up.
//
//   memtune::Session session;                          // the local GPU, or DeviceRequired
//   memtune::ProfileStore store{"app.memtune.json"};   // created on first save
//   memtune::Choice choice = session.tune_or_load(memtune::templates::filter_description(),
//                                                 {{"n", n}, {"taps", 21}}, store);
//   std::cout << choice.origin << ": " << choice.rationale << "\n";
//
// Environment: MEMTUNE_CONFIG='{"block_size":256,...}' pins a configuration;
// MEMTUNE_NO_TUNE=1 never tunes (a profile entry, else the description's default).
// A value that does not parse is an InputError naming the variable
// (tuner/src/session_environment.hpp).
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/profile_store.hpp>
#include <memtune/tuner.hpp>

#include <memory>
#include <string>

namespace memtune {

// A configuration chosen for a problem, compiled and loaded, ready to launch.
struct Choice {
  search::Config config;
  std::string origin;     // "profile", "profile (nearest size)", "tuned", "MEMTUNE_CONFIG", "default"
  std::string rationale;  // why this configuration (from the tuning run or the profile)
  LaunchSpec launch;      // grid/block/shared memory for the problem it was chosen for
  Target target;          // the GPU it was loaded for (a launch at another problem size evaluates on it)
  std::shared_ptr<cuda::Module> module;
  CUfunction function = nullptr;
};

class Session {
public:
  explicit Session(int device = 0); // throws DeviceRequired without a GPU
  [[nodiscard]] const Target& target() const { return target_; }
  [[nodiscard]] DeviceFingerprint device() const { return fingerprint(target_); }

  // Measures the kernel's space (see tune() in tuner.hpp).
  TuningResult tune(const KernelDescription& kernel, const Problem& problem, TuneOptions options = {}) const;

  // The profile's entry for this GPU and problem (or the nearest size); when
  // there is none, tunes and saves the result. Honours MEMTUNE_CONFIG and
  // MEMTUNE_NO_TUNE, and falls back to the description's default
  // configuration when tuning finds nothing that works.
  Choice tune_or_load(const KernelDescription& kernel, const Problem& problem, ProfileStore& store,
                      TuneOptions options = {}) const;

  // Compiles (through the disk cache) and loads one configuration.
  Choice load(const KernelDescription& kernel, const Problem& problem, const search::Config& config,
              std::string origin, std::string rationale) const;

private:
  int ordinal_;
  cuda::Context context_;
  Target target_;
};

} // namespace memtune
