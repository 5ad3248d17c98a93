#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/launch.hpp>
#include <memtune/launch/session.hpp>

#include <memtune/tune/search_loop.hpp>

#include <chrono>

namespace memtune {
namespace {


cuda::Context open_context(int ordinal) {
  if (!cuda::driver_available())
    throw DeviceRequired("memtune needs an NVIDIA GPU here: " + cuda::driver_unavailable_reason());
  return cuda::Context(ordinal);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

Session::Session(int device) : ordinal_(device), context_(open_context(device)), target_(local_target(device)) {}

TuningResult Session::tune(const KernelDescription& kernel, const Problem& problem, TuneOptions options) const {
  options.device = ordinal_;
  context_.make_current();
  return memtune::tune(kernel, problem, options);
}

Choice Session::load(const KernelDescription& kernel, const Problem& given, const search::Config& config,
                     std::string origin, std::string rationale, const TuneOptions& options) const {
  const auto start = std::chrono::steady_clock::now();
  context_.make_current();
  const Problem problem = kernel.complete(given);
  const search::Space space = kernel.space(problem, target_);
  if (auto why = space.violation(config))
    throw std::invalid_argument("configuration " + space.format(config) + " is not valid here: " + *why);

  Choice c;
  c.config = config;
  c.origin = std::move(origin);
  c.rationale = std::move(rationale);
  c.formatted = space.format(config);
  c.launch = kernel.launch(config, problem, target_);
  c.target = target_;
  std::optional<CompileCache> cache;
  if (options.use_cache) cache.emplace(options.cache_folder.value_or(CompileCache::default_folder()));
  const CompileResult compiled =
      compile_cached(kernel.compile_request(c.launch, target_.compute_capability()), cache ? &*cache : nullptr);
  if (!compiled.ok) throw std::runtime_error("configuration " + c.formatted + " does not compile:\n" + compiled.log);
  check_signature(kernel, compiled);
  c.module = std::make_shared<cuda::Module>(compiled.cubin);
  c.function = c.module->function(compiled.lowered_name);
  cuda::allow_dynamic_smem(c.function, c.launch);
  c.seconds.load = seconds_since(start);
  return c;
}

Choice Session::tune_or_load(const KernelDescription& kernel, const Problem& given, ProfileStore* store,
                             const LauncherOptions& options) const {
  auto start = std::chrono::steady_clock::now();
  const Problem problem = kernel.complete(given);
  ConfigLookup found = look_up_config(kernel, problem, target_, store, options, LookupEnvironment::from_process());
  ChoiceTimings seconds;
  seconds.lookup = seconds_since(start);

  if (found.source == ConfigLookup::Source::tune) {
    start = std::chrono::steady_clock::now();
    const TuningResult result = tune(kernel, problem, options.tune);
    seconds.tuning = seconds_since(start);
    if (const Evaluation* best = result.best()) {
      if (store && options.save) store->save(make_profile_entry(result));
      found.config = best->config;
      found.rationale = rationale(result);
    } else {
      found.origin = "default";
      found.config = kernel.default_config(problem, target_);
      found.rationale = "tuning found no working configuration (" +
                        (result.aborted.empty() ? std::to_string(result.evaluations.size()) + " candidates failed"
                                                : result.aborted) +
                        "): the description's default configuration";
    }
  }
  // Notes (a MEMTUNE_CONFIG key two edits from this kernel's name, an entry
  // tuned for another version of the kernel) reach the application with the
  // rationale it prints.
  for (const std::string& note : found.notes) found.rationale += " (" + note + ")";
  Choice c = load(kernel, problem, found.config, std::move(found.origin), std::move(found.rationale), options.tune);
  c.seconds.lookup = seconds.lookup;
  c.seconds.tuning = seconds.tuning;
  return c;
}

} // namespace memtune
