#pragma once
// Compares a kernel's output with expected values on the GPU.
//
// The expected values (doubles) are uploaded once per run; each candidate's
// output is then compared by a small kernel, so verifying a 16M-element
// output costs tens of microseconds instead of a 64 MB download and a CPU
// pass (which made up half of the warm tuning time). One compare kernel serves
// every element type. The rule: |out - ref| <= abs + rel * |ref|; NaN never
// passes (the poisoned output is NaN, so an element never written fails).
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/element_type.hpp>
#include <memtune/verification.hpp>

#include <memory>
#include <span>

namespace memtune {

// The compare kernel, compiled (through the cache) and loaded into the
// current context once, and shared by every verifier of a run.
class CompareKernel {
public:
  explicit CompareKernel(const UploadContext& context);
  [[nodiscard]] CUfunction function() const { return function_; }

private:
  cuda::Module module_;
  CUfunction function_ = nullptr;
};

class DeviceVerifier {
public:
  DeviceVerifier() = default;
  // Outputs of `type` against `expected`, with `tolerance`.
  DeviceVerifier(std::span<const double> expected, ElementType type, Tolerance tolerance,
                 std::shared_ptr<const CompareKernel> kernel);
  // float outputs, absolute tolerance (a kernel of its own).
  DeviceVerifier(std::span<const double> expected, double tolerance, const UploadContext& context);

  // Stream-ordered after the kernel that wrote `out` (expected.size() elements
  // of the type). first_bad is an index into `out`; tolerance is the allowed
  // error at first_bad (when ok, the largest allowed error).
  Verification verify(CUdeviceptr out, CUstream stream);
  [[nodiscard]] std::int64_t size() const { return n_; }

private:
  std::int64_t n_ = 0;
  ElementType type_ = ElementType::f32;
  Tolerance tolerance_;
  double largest_expected_ = 0.0; // max |expected|: the tolerance reported when ok
  cuda::DeviceBuffer expected_;
  cuda::DeviceBuffer result_;  // bad count, max error (bits), first bad index
  cuda::PinnedBuffer host_result_;
  std::shared_ptr<const CompareKernel> kernel_;
};

} // namespace memtune
