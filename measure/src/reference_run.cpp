#include <memtune/measure/reference_run.hpp>

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/launch.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/kernel_signature.hpp>

#include <memtune/description/description_internal.hpp>
#include "host_check_library.hpp"

namespace memtune {
namespace {


} // namespace

PlannedReference plan_reference(const KernelDescription& d, const Problem& problem, const Target& target,
                                const CompileCache* cache) {
  if (d.verify.mode == VerifySpec::Mode::callback) return {};
  if (d.verify.mode == VerifySpec::Mode::host_check) {
    // Loaded here too, so that a missing library or function stops the run before its first candidate.
    try {
      const description_detail::HostCheckLibrary check(*d.verify.host_check, description_detail::origin_of(d));
    } catch (const std::invalid_argument& e) {
      return {std::nullopt, e.what()};
    }
    return {};
  }
  const bool own_kernel = d.verify.mode == VerifySpec::Mode::reference_config;
  ReferencePlan plan;
  plan.what = own_kernel ? "the reference configuration" : "the reference kernel";
  CompileRequest request;
  try {
    // A reference kernel takes the same arguments: their values are those of the default configuration.
    plan.config = own_kernel ? d.reference_configuration(problem, target) : d.default_config(problem, target);
    plan.launch = own_kernel ? d.launch(plan.config, problem, target) : d.reference_launch(problem, target);
    request = own_kernel ? d.compile_request(plan.launch, target.compute_capability())
                         : d.reference_compile_request(plan.launch, target.compute_capability());
  } catch (const std::invalid_argument& e) {
    return {std::nullopt, plan.what + " cannot run: " + e.what()};
  }
  plan.compiled = compile_cached(request, cache);
  if (!plan.compiled.ok)
    return {std::nullopt, plan.what + " (" + plan.launch.name_expression + ") does not compile:\n" + plan.compiled.log};
  if (auto mismatch = signature_mismatch(d, plan.compiled.lowered_name)) return {std::nullopt, *mismatch};
  return {std::move(plan), std::nullopt};
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
  if (!planned.plan) return std::nullopt;
  const ReferencePlan& p = *planned.plan;
  return launch_reference(p.what, p.config, p.launch, p.compiled.cubin, p.compiled.lowered_name, workload, stream);
}

} // namespace memtune
