#pragma once
// Compares a kernel's output with expected values on the GPU.
//
// The expected values are on the GPU once per run: a host reference's
// doubles uploaded, or a reference kernel's outputs copied on the device in
// their own type (no round trip through the host); each candidate's output is
// then compared by a small kernel, so verifying a 16M-element output costs
// tens of microseconds instead of a 64 MB download and a CPU pass (which made
// up half of the warm tuning time). One compare kernel serves every element
// type, of the output and of the expected values. The rule (compare_rule.cuh, shared with the host):
// |out - ref| <= abs + rel * |ref|; NaN never passes (the poisoned output is
// NaN, so an element never written fails), except where the output is
// written only in part and both runs left the element poisoned.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/description/element_type.hpp>
#include <memtune/description/verification.hpp>
#include <memtune/measure/internal_kernel.hpp>

#include <memory>
#include <span>

namespace memtune {

// The compare kernel, compiled (through the cache) and loaded into the
// current context once, and shared by every verifier of a run.
class CompareKernel {
public:
  explicit CompareKernel(const UploadContext& context);
  [[nodiscard]] CUfunction function() const { return kernel_.function(); }

private:
  InternalKernel kernel_;
};

class DeviceVerifier {
public:
  DeviceVerifier() = default;
  // Outputs of `type` against `expected`, one value per lane (a float4
  // output of n elements has 4n expected values), with `tolerance`.
  // poison_agrees: an output written only in part, where an element that is
  // NaN in `expected` (left poisoned by the reference) must be NaN in the
  // output too (left poisoned by the candidate).
  DeviceVerifier(std::span<const double> expected, ElementType type, Tolerance tolerance,
                 std::shared_ptr<const CompareKernel> kernel, bool poison_agrees = false);
  // The same against `lanes` lanes of `type` at `reference` on the device (a
  // reference kernel's output), copied on `stream` before it returns.
  DeviceVerifier(CUdeviceptr reference, std::int64_t lanes, ElementType type, Tolerance tolerance,
                 std::shared_ptr<const CompareKernel> kernel, bool poison_agrees, CUstream stream);
  // float outputs, absolute tolerance (a kernel of its own).
  DeviceVerifier(std::span<const double> expected, double tolerance, const UploadContext& context);

  // Stream-ordered after the kernel that wrote `out` (expected.size() lanes
  // of the type). first_bad is a lane index into `out`; tolerance is the allowed
  // error at first_bad (when ok, the largest allowed error).
  Verification verify(CUdeviceptr out, CUstream stream);
  // The expected lanes that are NaN (for a reference's floating-point
  // outputs: those it left poisoned), counted on the device.
  std::int64_t nan_lanes(CUstream stream);
  [[nodiscard]] std::int64_t size() const { return n_; }

private:
  // The compare kernel over `out` (lanes of out_lane) against the expected values.
  Verification compare(CUdeviceptr out, ElementType out_lane, Tolerance tolerance, bool poison_agrees, CUstream stream);

  std::int64_t n_ = 0;
  ElementType type_ = ElementType::f32;          // the output's lane type
  ElementType expected_type_ = ElementType::f64; // the expected values' lane type
  Tolerance tolerance_;
  bool poison_agrees_ = false;
  cuda::DeviceBuffer expected_;
  cuda::DeviceBuffer result_;  // bad count, max error (bits), first bad index, max |expected| (bits)
  cuda::PinnedBuffer host_result_;
  std::shared_ptr<const CompareKernel> kernel_;
};

} // namespace memtune
