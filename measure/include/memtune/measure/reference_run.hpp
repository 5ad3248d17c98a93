#pragma once
// Internal to the tuning loop: the reference run before the search. With
// VerifySpec::reference_config or reference_kernel, the reference is compiled
// (plan_reference, in the tuning process) and launched once on the run's
// workload (launch_reference, where the GPU is: this process or a worker), and
// its outputs become what every candidate is verified against. A reference
// kernel with depends_on axes is planned and launched once per combination of
// their values, each on that combination's arguments.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/measure/workload.hpp>

#include <cuda.h>

#include <optional>
#include <span>
#include <vector>
#include <string>

namespace memtune {

// A compiled reference, ready to launch.
struct ReferencePlan {
  std::string what;        // "the reference configuration" / "the reference kernel", for messages
  search::Config config;   // whose argument values the reference gets
  LaunchSpec launch;
  CompileResult compiled;
};

struct PlannedReference {
  // None for a callback or a host check (the workload computes its expected
  // outputs); one per combination of verify.depends_on's values.
  std::vector<ReferencePlan> plans;
  std::optional<std::string> error;  // why there is no reference: cannot be made for this problem, does not compile
};

// VerifySpec::tolerance_terms evaluated for the problem. Throws
// std::invalid_argument naming the field where it cannot be evaluated or is
// below 1 (an output sums at least one term).
std::int64_t tolerance_terms(const KernelDescription& description, const Problem& problem, const Target& target);

// Compiles the reference (through the cache) and checks its signature. No GPU.
PlannedReference plan_reference(const KernelDescription& description, const Problem& problem, const Target& target,
                                const CompileCache* cache);

// Launches a planned reference on the workload (poisoned outputs first) and
// captures its outputs as the expected values. Returns why that failed (a
// launch error, outputs left unwritten). Throws cuda::DriverError for a sticky
// error (the context is lost).
std::optional<std::string> launch_reference(const std::string& what, const search::Config& config,
                                            const LaunchSpec& launch, std::span<const char> cubin,
                                            const std::string& lowered_name, DescribedWorkload& workload,
                                            CUstream stream);

// Both, in one process, for every plan. Nothing to do for a callback.
std::optional<std::string> run_reference(const KernelDescription& description, const Problem& problem,
                                         const Target& target, DescribedWorkload& workload, const CompileCache* cache,
                                         CUstream stream);

} // namespace memtune
