#pragma once
// Compares a kernel's output with the CPU reference on the GPU.
//
// The reference is computed on the CPU (in double) once per run and uploaded;
// each candidate's output is then compared by a small kernel, so verifying a
// 16M-element output costs tens of microseconds instead of a 64 MB download
// and a CPU pass (which made up half of the warm tuning time). The rule is the
// CPU one (compare_with_reference): |out - ref| <= tolerance, NaN never passes.
#include <memtune/compile/compile_cache.hpp>
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/module.hpp>
#include <memtune/kernel_template.hpp>

#include <span>

namespace memtune {

// What a workload needs from the device to set itself up.
struct UploadContext {
  int compute_capability = 0;
  const CompileCache* cache = nullptr; // may be null
};

class DeviceVerifier {
public:
  DeviceVerifier() = default;
  DeviceVerifier(std::span<const double> reference, double tolerance, const UploadContext& context);

  // Stream-ordered after the kernel that wrote `out` (n = reference size floats).
  Verification verify(CUdeviceptr out, CUstream stream);

private:
  std::int64_t n_ = 0;
  double tolerance_ = 0.0;
  cuda::DeviceBuffer reference_;
  cuda::DeviceBuffer result_;  // bad count, max error (bits), first bad index
  cuda::PinnedBuffer host_result_;
  cuda::Module module_;
  CUfunction compare_ = nullptr;
};

} // namespace memtune
