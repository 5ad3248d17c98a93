#pragma once
// Inputs, reference and device buffers of one matvec problem: A in the
// problem's layout, x, y, and the split workspace (partial sums for up to
// matvec_max_splits(cols) splits, one counter per row, zero at upload and
// after every launch). Baseline "cublas": cublasSgemv on the same A, x, y.
#include <memtune/cuda/buffer.hpp>
#include <memtune/device_verifier.hpp>
#include <memtune/kernel_template.hpp>
#include <memtune/templates/matvec.hpp>

#include <cstdint>
#include <vector>

namespace memtune::templates {

class MatvecWorkload final : public Workload {
public:
  // Builds the random inputs and the CPU reference (no GPU).
  MatvecWorkload(std::int64_t rows, std::int64_t cols, MatvecLayout layout, std::uint64_t seed);

  void upload(const UploadContext& context) override;
  void prepare(CUmodule) override {}
  std::vector<void*> kernel_args(const search::Config& config) override;
  // y = NaN, and the split counters back to zero (a failed launch may have left them).
  void poison(CUstream stream) override;
  Verification verify(CUstream stream) override;
  // y = NaN, counters as the last launch left them: for the test that every
  // launch resets its counters for the next.
  void poison_output_only(CUstream stream);
  std::unique_ptr<Baseline> make_baseline(const std::string& name) override;

  [[nodiscard]] const std::vector<float>& a() const { return a_; }
  [[nodiscard]] const std::vector<float>& x() const { return x_; }
  [[nodiscard]] const std::vector<double>& reference() const { return reference_; }
  [[nodiscard]] double tolerance() const { return tolerance_; }

private:
  std::int64_t rows_, cols_;
  MatvecLayout layout_;
  std::vector<float> a_, x_;
  std::vector<double> reference_;
  double tolerance_;

  cuda::DeviceBuffer d_a_, d_x_, d_y_, d_partial_, d_counters_;
  DeviceVerifier verifier_;
  // Launch parameters, kept alive for cuLaunchKernel.
  CUdeviceptr arg_a_ = 0, arg_x_ = 0, arg_y_ = 0, arg_partial_ = 0, arg_counters_ = 0;
  long long arg_m_ = 0, arg_n_ = 0, arg_chunk_ = 0;
};

} // namespace memtune::templates
