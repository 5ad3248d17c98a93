#include <memtune/measure/reference_run.hpp>

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/launch.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/kernel_signature.hpp>

#include <memtune/description/description_internal.hpp>
#include "host_check_library.hpp"

#include <algorithm>

namespace memtune {
namespace {

// The combinations of the depends_on axes' values in the space (an axis
// pruned on this target is left out): [{}] without depends_on.
std::vector<search::Config> depends_on_combinations(const KernelDescription& d, const search::Space& space) {
  std::vector<search::Config> combinations{search::Config{}};
  for (const std::string& name : d.verify.depends_on) {
    const auto& axes = space.axes();
    const auto axis = std::find_if(axes.begin(), axes.end(), [&](const search::Axis& a) { return a.name == name; });
    if (axis == axes.end()) continue;
    std::vector<search::Config> grown;
    for (const search::Config& c : combinations)
      for (const std::int64_t v : axis->values) {
        search::Config next = c;
        next.set(name, v);
        grown.push_back(std::move(next));
      }
    combinations = std::move(grown);
  }
  return combinations;
}

constexpr std::size_t kMaxReferenceRuns = 64;

} // namespace

std::int64_t tolerance_terms(const KernelDescription& d, const Problem& problem, const Target& target) {
  const std::int64_t terms = description_detail::evaluate(
      d, d.verify.tolerance_terms, description_detail::environment(d, nullptr, problem, &target), "verify.tolerance.terms");
  if (terms < 1)
    throw std::invalid_argument("verify.tolerance.terms = " + d.verify.tolerance_terms.to_string() + " is " +
                                std::to_string(terms) + " for this problem (an output sums at least 1 term)");
  return terms;
}

PlannedReference plan_reference(const KernelDescription& d, const Problem& problem, const Target& target,
                                const CompileCache* cache) {
  if (d.verify.mode == VerifySpec::Mode::callback) return {};
  if (d.verify.mode == VerifySpec::Mode::host_check) {
    // Loaded here too, so that a missing library or function stops the run before its first candidate.
    try {
      const description_detail::HostCheckLibrary check(*d.verify.host_check, description_detail::origin_of(d));
    } catch (const std::invalid_argument& e) {
      return {{}, e.what()};
    }
    return {};
  }
  const bool own_kernel = d.verify.mode == VerifySpec::Mode::reference_config;
  const std::string what = own_kernel ? "the reference configuration" : "the reference kernel";
  PlannedReference planned;
  try {
    (void)tolerance_terms(d, problem, target); // before any GPU work: the capture needs it
    std::vector<search::Config> combinations{search::Config{}};
    if (!own_kernel) combinations = depends_on_combinations(d, d.space(problem, target));
    if (combinations.size() > kMaxReferenceRuns)
      return {{}, what + " depends on " + std::to_string(combinations.size()) + " combinations of verify.depends_on's "
                  "values; at most " + std::to_string(kMaxReferenceRuns) + " are run"};
    for (const search::Config& axes : combinations) {
      ReferencePlan plan;
      plan.what = what;
      // A reference kernel takes the same arguments: their values are those
      // of the default configuration, with the depends_on axes' values.
      plan.config = own_kernel ? d.reference_configuration(problem, target) : d.default_config(problem, target);
      for (const auto& [name, value] : axes.values()) plan.config.set(name, value);
      plan.launch = own_kernel ? d.launch(plan.config, problem, target) : d.reference_launch(problem, target, axes);
      const CompileRequest request = own_kernel ? d.compile_request(plan.launch, target.compute_capability())
                                                : d.reference_compile_request(plan.launch, target.compute_capability());
      plan.compiled = compile_cached(request, cache);
      if (!plan.compiled.ok)
        return {{}, what + " (" + plan.launch.name_expression + ") does not compile:\n" + plan.compiled.log};
      if (auto mismatch = signature_mismatch(d, plan.compiled.lowered_name)) return {{}, *mismatch};
      planned.plans.push_back(std::move(plan));
    }
  } catch (const std::invalid_argument& e) {
    return {{}, what + " cannot run: " + e.what()};
  }
  return planned;
}

std::optional<std::string> launch_reference(const std::string& what, const search::Config& config,
                                            const LaunchSpec& launch, std::span<const char> cubin,
                                            const std::string& lowered_name, DescribedWorkload& workload,
                                            CUstream stream) {
  try {
    cuda::Module module(std::vector<char>(cubin.begin(), cubin.end()));
    CUfunction fn = module.function(lowered_name);
    cuda::allow_dynamic_smem(fn, launch);
    std::vector<void*> args = workload.kernel_args(config);
    workload.prepare(module.get(), config);
    workload.poison(stream);
    cuda::launch_kernel(fn, launch, stream, args.data());
    if (auto unwritten = workload.capture_reference(stream)) return what + " (" + launch.name_expression + "): " + *unwritten;
  } catch (const cuda::DriverError& e) {
    if (e.is_sticky()) throw;
    return what + " (" + launch.name_expression + ") failed: " + e.what();
  } catch (const std::invalid_argument& e) {
    return what + " (" + launch.name_expression + ") cannot run: " + e.what();
  }
  return std::nullopt;
}

std::optional<std::string> run_reference(const KernelDescription& d, const Problem& problem, const Target& target,
                                         DescribedWorkload& workload, const CompileCache* cache, CUstream stream) {
  const PlannedReference planned = plan_reference(d, problem, target, cache);
  if (planned.error) return planned.error;
  for (const ReferencePlan& p : planned.plans)
    if (auto error = launch_reference(p.what, p.config, p.launch, p.compiled.cubin, p.compiled.lowered_name, workload, stream))
      return error;
  return std::nullopt;
}

} // namespace memtune
