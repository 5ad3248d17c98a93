#include "reference_run.hpp"

#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/kernel_signature.hpp>

namespace memtune {
namespace {

constexpr std::size_t kDefaultDynamicSmemLimit = 48 * 1024; // above this a kernel must opt in

} // namespace

std::optional<std::string> run_reference(const KernelDescription& d, const Problem& problem, const Target& target,
                                         DescribedWorkload& workload, const CompileCache* cache, CUstream stream) {
  if (d.verify.mode == VerifySpec::Mode::callback) return std::nullopt;
  const bool own_kernel = d.verify.mode == VerifySpec::Mode::reference_config;
  const char* what = own_kernel ? "the reference configuration" : "the reference kernel";
  search::Config config;
  LaunchSpec launch;
  CompileRequest request;
  try {
    // A reference kernel takes the same arguments: their values are those of the default configuration.
    config = own_kernel ? d.reference_configuration(problem, target) : d.default_config(problem, target);
    launch = own_kernel ? d.launch(config, problem, target) : d.reference_launch(problem, target);
    request = own_kernel ? d.compile_request(launch, target.compute_capability())
                         : d.reference_compile_request(launch, target.compute_capability());
  } catch (const std::invalid_argument& e) {
    return std::string(what) + " cannot run: " + e.what();
  }
  const CompileResult compiled = compile_cached(request, cache);
  if (!compiled.ok) return std::string(what) + " (" + launch.name_expression + ") does not compile:\n" + compiled.log;
  if (auto mismatch = signature_mismatch(d, compiled.lowered_name)) return *mismatch;

  const cuda::DriverApi& cu = cuda::driver_api();
  try {
    cuda::Module module(compiled.cubin);
    CUfunction fn = module.function(compiled.lowered_name);
    if (launch.dynamic_smem_bytes > kDefaultDynamicSmemLimit)
      MEMTUNE_CU(cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                       static_cast<int>(launch.dynamic_smem_bytes)));
    std::vector<void*> args = workload.kernel_args(config);
    workload.prepare(module.get(), config);
    workload.poison(stream);
    MEMTUNE_CU(cu.cuLaunchKernel(fn, launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x, launch.block.y,
                                 launch.block.z, static_cast<unsigned>(launch.dynamic_smem_bytes), stream, args.data(),
                                 nullptr));
    if (auto unwritten = workload.capture_reference(stream)) return std::string(what) + " (" + launch.name_expression + "): " + *unwritten;
  } catch (const cuda::DriverError& e) {
    if (e.is_sticky()) throw;
    return std::string(what) + " (" + launch.name_expression + ") failed: " + e.what();
  } catch (const std::invalid_argument& e) {
    return std::string(what) + " (" + launch.name_expression + ") cannot run: " + e.what();
  }
  return std::nullopt;
}

} // namespace memtune
