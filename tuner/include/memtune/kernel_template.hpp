#pragma once
// The interface every kernel template implements. The tuner knows nothing
// about any one template; a template knows nothing about search.
//
// A template is: CUDA source (compiled by NVRTC), a search space for a problem
// on a target, a mapping from a Config to a launch, and a Workload that owns
// the problem's inputs, its CPU reference and the verification.
#include <memtune/access_pattern.hpp>
#include <memtune/baseline.hpp>
#include <memtune/compile/compile_request.hpp>
#include <memtune/launch_spec.hpp>
#include <memtune/verification.hpp>
#include <memtune/problem.hpp>
#include <memtune/search/config.hpp>
#include <memtune/search/space.hpp>
#include <memtune/target.hpp>
#include <memtune/tuning_result.hpp>

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memtune {

// The problem's data: inputs (random, never zeros), the CPU reference and the
// device buffers. Created once per tuning run and shared by all candidates.
class Workload {
public:
  virtual ~Workload() = default;
  // Allocates device buffers, uploads the inputs and the reference (needs a
  // current context).
  virtual void upload(const UploadContext& context) = 0;
  // Per-module set-up, e.g. copying filter coefficients to __constant__ memory.
  virtual void prepare(CUmodule module) = 0;
  // Kernel parameters for a configuration, as cuLaunchKernel takes them;
  // valid until the next call.
  virtual std::vector<void*> kernel_args(const search::Config& config) = 0;
  // Fills every output with NaN, so an element the kernel skipped cannot pass.
  virtual void poison(CUstream stream) = 0;
  // Compares the outputs (stream-ordered after the launch) with the reference.
  virtual Verification verify(CUstream stream) = 0;
  // A baseline over this workload's buffers (after upload, with the context
  // current), by one of KernelTemplate::baselines()' names. The baseline may
  // report itself unavailable (no library); an unknown name throws
  // std::invalid_argument. The workload outlives it.
  virtual std::unique_ptr<Baseline> make_baseline(const std::string& name);
};

class KernelTemplate {
public:
  virtual ~KernelTemplate() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string description() const = 0;
  [[nodiscard]] virtual std::vector<ProblemParameter> problem_parameters() const = 0;
  [[nodiscard]] virtual const std::string& source() const = 0;
  [[nodiscard]] virtual std::string source_name() const = 0;
  // The space for a problem on a target: axes the target cannot use are pruned
  // (with the reason), and static constraints (threads, shared memory per
  // block) are applied before anything compiles.
  [[nodiscard]] virtual search::Space space(const Problem& problem, const Target& target) const = 0;
  [[nodiscard]] virtual LaunchSpec launch(const search::Config& config, const Problem& problem) const = 0;
  // A sensible configuration for when tuning is impossible or disabled; valid
  // in space(problem, target).
  [[nodiscard]] virtual search::Config default_config(const Problem& problem, const Target& target) const = 0;
  // Minimum bytes a launch must move through DRAM for the problem (each input
  // read once, each output written once): the numerator of every GB/s.
  [[nodiscard]] virtual std::uint64_t bytes_moved(const Problem& problem) const = 0;
  // The configuration's memory accesses, for the analytical model (no GPU).
  [[nodiscard]] virtual AccessPattern access_pattern(const search::Config& config, const Problem& problem,
                                                     const Target& target) const = 0;
  // What the template adds to the rationale once a run is done, e.g. what a
  // data-layout change (the user's decision) buys on this target. Empty when
  // it has nothing to add.
  [[nodiscard]] virtual std::string explain(const TuningResult& result) const {
    (void)result;
    return {};
  }
  [[nodiscard]] virtual std::unique_ptr<Workload> make_workload(const Problem& problem, std::uint64_t seed) const = 0;
  // Names of the baselines the workload can make for `--compare` ("cublas").
  [[nodiscard]] virtual std::vector<std::string> baselines() const { return {}; }
};

// Throws std::invalid_argument naming the unknown baseline and the known ones
// ("unknown baseline 'foo' for matvec (known: cublas)").
void check_baseline_names(const KernelTemplate& kernel, const std::vector<std::string>& names);

// The compile request for one configuration of a template on an architecture.
CompileRequest compile_request(const KernelTemplate& kernel, const LaunchSpec& launch, int compute_capability);

} // namespace memtune
