#pragma once
// Internal to the tuning loop: the reference run before the search. With
// VerifySpec::reference_config or reference_kernel, the reference is compiled
// and launched once on the run's workload, and its outputs become what every
// candidate is verified against.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/workload.hpp>

#include <cuda.h>

#include <optional>
#include <string>

namespace memtune {

// Nothing to do for a callback (the workload computes its expected outputs).
// Returns why there is no reference: it does not compile, fails to launch,
// cannot be made for this problem, or leaves outputs unwritten. Throws
// cuda::DriverError for a sticky error (the context is lost).
std::optional<std::string> run_reference(const KernelDescription& description, const Problem& problem,
                                         const Target& target, DescribedWorkload& workload, const CompileCache* cache,
                                         CUstream stream);

} // namespace memtune
