#pragma once
// Inputs, reference and device buffers of one aos_soa problem. The struct
// input is uploaded in both layouts and the output is verified in the layout
// of the configuration launched last (kernel_args chooses).
#include <memtune/cuda/buffer.hpp>
#include <memtune/device_verifier.hpp>
#include <memtune/kernel_template.hpp>
#include <memtune/templates/aos_soa.hpp>

#include <cstdint>
#include <vector>

namespace memtune::templates {

class AosSoaWorkload final : public Workload {
public:
  // Builds the random input and the CPU reference (no GPU).
  AosSoaWorkload(std::int64_t n, AosSoaOp op, int fields, std::uint64_t seed);

  void upload(const UploadContext& context) override;
  void prepare(CUmodule) override {}
  std::vector<void*> kernel_args(const search::Config& config) override;
  void poison(CUstream stream) override;
  Verification verify(CUstream stream) override;

  // read, readwrite: the structs in AoS order (n*F); write: the scalars (n).
  [[nodiscard]] const std::vector<float>& input() const { return input_; }
  // In AoS order: read: n sums; write, readwrite: n*F fields.
  [[nodiscard]] const std::vector<double>& reference() const { return reference_; }
  [[nodiscard]] double tolerance() const { return tolerance_; }

private:
  std::int64_t n_;
  AosSoaOp op_;
  int fields_;
  std::int64_t pitch_;
  std::vector<float> input_;
  std::vector<double> reference_;
  double tolerance_;

  cuda::DeviceBuffer d_in_aos_, d_in_soa_, d_out_;
  DeviceVerifier verify_aos_;               // the whole output in AoS order (read: the n sums)
  std::vector<DeviceVerifier> verify_soa_;  // write, readwrite: one per field array
  bool out_is_soa_ = false;                 // layout of the last kernel_args
  // Launch parameters, kept alive for cuLaunchKernel.
  CUdeviceptr arg_in_ = 0, arg_out_ = 0;
  long long arg_n_ = 0, arg_pitch_ = 0;
};

} // namespace memtune::templates
