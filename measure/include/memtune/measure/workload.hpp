#pragma once
// The data of one tuning run of a described kernel: inputs filled as the
// description says (random, never zeros, by default), device buffers, the
// expected outputs, poisoning and verification. One generic implementation
// for every kernel; nothing here knows a template.
//
// Life of a run (the tuning loop drives it, in one process or in a worker):
//   DescribedWorkload w(description, problem, target, seed);  // host inputs (no GPU)
//   w.upload(context);                                // device buffers
//   per candidate: args = w.kernel_args(config); w.prepare(module, config);
//                  w.poison(stream); launch(args); w.verify(stream);
//                  timed launches: w.before_launch(stream) first when w.refills_before_launch()
// With VerifySpec::reference_config or reference_kernel, the loop first runs
// the reference and calls capture_reference(); with a callback the workload
// computes the expected outputs itself (once per value of depends_on).
//
// Inputs: the i-th filled item (in and inout buffers in argument order, then
// constant symbols) uses seed + i, so a template keeps the data it had before
// it was a description. Poison: NaN for floating outputs, 0xA5 bytes for
// integer ones.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/buffer.hpp>
#include <memtune/description/kernel_description.hpp>
#include <memtune/description/verification.hpp>

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace memtune {

class DescribedWorkload {
public:
  // Fills the host inputs and constants (no GPU). Throws std::invalid_argument
  // naming the argument when a count cannot be evaluated or is negative.
  DescribedWorkload(const KernelDescription& description, const Problem& problem, const Target& target,
                    std::uint64_t seed);
  ~DescribedWorkload();
  DescribedWorkload(const DescribedWorkload&) = delete;
  DescribedWorkload& operator=(const DescribedWorkload&) = delete;

  // Allocates the device buffers and uploads the inputs (needs a current context).
  void upload(const UploadContext& context);
  // Kernel parameters for a configuration, as cuLaunchKernel takes them, valid
  // until the next call; selects the inputs' variant for the configuration's
  // depends_on values and grows config-dependent buffers. Throws
  // std::invalid_argument naming an argument whose value cannot be computed.
  std::vector<void*> kernel_args(const search::Config& config);
  // Fills the constant symbols of a freshly loaded module for `config` (throws
  // std::invalid_argument naming a symbol that is missing or of another size).
  void prepare(CUmodule module, const search::Config& config);
  // Before a verified launch: outputs poisoned, inout re-filled, scratch zeroed.
  void poison(CUstream stream);
  // Before every timed launch when refills_before_launch(): inout re-filled.
  void before_launch(CUstream stream);
  [[nodiscard]] bool refills_before_launch() const;
  // Compares the outputs of the last launch (stream-ordered after it) with the
  // expected outputs of the configuration of the last kernel_args.
  Verification verify(CUstream stream);

  // reference_config / reference_kernel: the outputs of the launch just made
  // (stream-ordered after it) become the expected outputs. Returns a note when
  // the reference left outputs unwritten (still poisoned): then it is no reference.
  std::optional<std::string> capture_reference(CUstream stream);
  [[nodiscard]] bool has_reference() const;

  // A buffer's device address by argument name (baselines); throws std::out_of_range.
  [[nodiscard]] CUdeviceptr buffer(const std::string& name) const;
  // [bytes] device memory the run needs for this configuration (inputs, pristine copies, outputs, expected values).
  [[nodiscard]] std::uint64_t device_bytes(const search::Config& config) const;
  // The host copy of a filled input or constant, as ReferenceRequest gives it.
  [[nodiscard]] std::span<const std::byte> host_input(const std::string& name, const search::Config& config) const;

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace memtune
