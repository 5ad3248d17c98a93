#pragma once
// Inputs, reference and device buffers of one fdtd problem.
#include <memtune/cuda/buffer.hpp>
#include <memtune/device_verifier.hpp>
#include <memtune/kernel_template.hpp>

#include <cstdint>
#include <vector>

namespace memtune::templates {

class FdtdWorkload final : public Workload {
public:
  // Builds the random volume and coefficients and the CPU reference (no GPU).
  FdtdWorkload(std::int64_t nx, std::int64_t ny, std::int64_t nz, int radius, std::uint64_t seed);

  void upload(const UploadContext& context) override;
  void prepare(CUmodule module) override;
  std::vector<void*> kernel_args(const search::Config& config) override;
  void poison(CUstream stream) override;
  Verification verify(CUstream stream) override;

  [[nodiscard]] const std::vector<float>& input() const { return input_; }
  [[nodiscard]] const std::vector<float>& coefficients() const { return coefficients_; }
  [[nodiscard]] const std::vector<double>& reference() const { return reference_; }
  [[nodiscard]] double tolerance() const { return tolerance_; }

private:
  std::int64_t nx_, ny_, nz_;
  int radius_;
  std::vector<float> input_;
  std::vector<float> coefficients_;
  std::vector<double> reference_;
  double tolerance_;

  cuda::DeviceBuffer d_in_, d_out_;
  DeviceVerifier verifier_;
  // Launch parameters, kept alive for cuLaunchKernel.
  CUdeviceptr arg_in_ = 0, arg_out_ = 0;
  int arg_nx_ = 0, arg_ny_ = 0, arg_nz_ = 0, arg_chunk_ = 0;
};

} // namespace memtune::templates
