#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/session.hpp>

#include "session_environment.hpp"

#include <cstdlib>

namespace memtune {
namespace {

cuda::Context open_context(int ordinal) {
  if (!cuda::driver_available())
    throw DeviceRequired("memtune needs an NVIDIA GPU here: " + cuda::driver_unavailable_reason());
  return cuda::Context(ordinal);
}

} // namespace

Session::Session(int device) : ordinal_(device), context_(open_context(device)), target_(local_target(device)) {}

TuningResult Session::tune(const KernelDescription& kernel, const Problem& problem, TuneOptions options) const {
  options.device = ordinal_;
  context_.make_current();
  return memtune::tune(kernel, problem, options);
}

Choice Session::load(const KernelDescription& kernel, const Problem& given, const search::Config& config,
                     std::string origin, std::string rationale) const {
  context_.make_current();
  const Problem problem = kernel.complete(given);
  const search::Space space = kernel.space(problem, target_);
  if (auto why = space.violation(config))
    throw std::invalid_argument("configuration " + space.format(config) + " is not valid here: " + *why);

  Choice c;
  c.config = config;
  c.origin = std::move(origin);
  c.rationale = std::move(rationale);
  c.launch = kernel.launch(config, problem, target_);
  c.target = target_;
  const CompileCache cache(CompileCache::default_folder());
  const CompileResult compiled = compile_cached(kernel.compile_request(c.launch, target_.compute_capability()), &cache);
  if (!compiled.ok) throw std::runtime_error("configuration " + space.format(config) + " does not compile:\n" + compiled.log);
  c.module = std::make_shared<cuda::Module>(compiled.cubin);
  c.function = c.module->function(compiled.lowered_name);
  if (c.launch.dynamic_smem_bytes > 48 * 1024)
    MEMTUNE_CU(cuda::driver_api().cuFuncSetAttribute(c.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                    static_cast<int>(c.launch.dynamic_smem_bytes)));
  return c;
}

Choice Session::tune_or_load(const KernelDescription& kernel, const Problem& given, ProfileStore& store,
                             TuneOptions options) const {
  const Problem problem = kernel.complete(given);
  const search::Space space = kernel.space(problem, target_);

  if (const char* pinned = std::getenv("MEMTUNE_CONFIG"); pinned && *pinned) {
    const search::Config config = pinned_config(pinned, space);
    return load(kernel, problem, config, "MEMTUNE_CONFIG", "pinned by the MEMTUNE_CONFIG environment variable");
  }

  if (auto entry = store.lookup(device(), kernel.name, problem, kernel.size_variables())) {
    const search::Config config = space.config_from_json(entry->config);
    if (space.is_valid(config)) {
      const bool exact = entry->problem == problem;
      return load(kernel, problem, config, exact ? "profile" : "profile (nearest size: " + format_problem(entry->problem) + ")",
                  entry->rationale);
    }
  }

  if (tuning_disabled(std::getenv("MEMTUNE_NO_TUNE")))
    return load(kernel, problem, kernel.default_config(problem, target_), "default",
                "tuning disabled by MEMTUNE_NO_TUNE and no profile entry: the description's default configuration");

  const TuningResult result = tune(kernel, problem, options);
  if (!result.best())
    return load(kernel, problem, kernel.default_config(problem, target_), "default",
                "tuning found no working configuration; using the description's default");
  store.save(make_profile_entry(result));
  return load(kernel, problem, result.best()->config, "tuned", rationale(result));
}

} // namespace memtune
