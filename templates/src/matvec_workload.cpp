#include "matvec_workload.hpp"

#include "cublas_loader.hpp"

#include <memtune/random_data.hpp>

#include <cstdio>
#include <stdexcept>

namespace memtune::templates {
namespace {

// y = A x with cublasSgemv on the workload's buffers. Column-major A is
// sgemv(N) with lda = rows; row-major A is the column-major cols x rows
// matrix A^T, so y = (A^T)^T x is sgemv(T) with m = cols, n = rows, lda = cols.
class CublasSgemv final : public Baseline {
public:
  CublasSgemv(MatvecLayout layout, int rows, int cols, const float* a, const float* x, float* y)
      : layout_(layout), rows_(rows), cols_(cols), a_(a), x_(x), y_(y) {
    const CublasApi& api = cublas_api();
    if (!api.loaded()) {
      reason_ = api.error;
      return;
    }
    const int status = api.create(&handle_);
    if (status != 0) {
      handle_ = nullptr;
      reason_ = api.library + ": cublasCreate_v2 failed with " + cublas_status_name(status);
    }
  }
  ~CublasSgemv() override {
    if (handle_) {
      const int status = cublas_api().destroy(handle_);
      if (status != 0) std::fprintf(stderr, "memtune: cublasDestroy_v2 failed with %s\n", cublas_status_name(status).c_str());
    }
  }

  [[nodiscard]] std::string description() const override { return "cuBLAS sgemv"; }
  [[nodiscard]] bool available() const override { return handle_ != nullptr; }
  [[nodiscard]] std::string unavailable_reason() const override { return reason_; }

  void launch(CUstream stream) override {
    const CublasApi& api = cublas_api();
    check(api.set_stream(handle_, stream), "cublasSetStream_v2");
    const float alpha = 1.0F, beta = 0.0F; // beta = 0: y is not read, so its NaN poison cannot leak in
    if (layout_ == MatvecLayout::col)
      check(api.sgemv(handle_, kCublasOpN, rows_, cols_, &alpha, a_, rows_, x_, 1, &beta, y_, 1), "cublasSgemv_v2");
    else
      check(api.sgemv(handle_, kCublasOpT, cols_, rows_, &alpha, a_, cols_, x_, 1, &beta, y_, 1), "cublasSgemv_v2");
  }

private:
  static void check(int status, const char* call) {
    if (status != 0) throw std::runtime_error(std::string(call) + " failed with " + cublas_status_name(status));
  }
  MatvecLayout layout_;
  int rows_, cols_;
  const float* a_;
  const float* x_;
  float* y_;
  cublas_handle handle_ = nullptr;
  std::string reason_;
};

template <class T> T* device_pointer(const cuda::DeviceBuffer& b) {
  return reinterpret_cast<T*>(static_cast<std::uintptr_t>(b.get()));
}

} // namespace

MatvecWorkload::MatvecWorkload(std::int64_t rows, std::int64_t cols, MatvecLayout layout, std::uint64_t seed)
    : rows_(rows), cols_(cols), layout_(layout), a_(static_cast<std::size_t>(rows * cols)),
      x_(static_cast<std::size_t>(cols)) {
  fill_random(a_, seed);
  fill_random(x_, seed + 1);
  reference_ = matvec_reference(layout, rows, cols, a_, x_);
  tolerance_ = matvec_tolerance(layout, rows, cols, a_, x_);
}

void MatvecWorkload::upload(const UploadContext& context) {
  const auto floats = [](std::int64_t count) { return static_cast<std::size_t>(count) * sizeof(float); };
  d_a_ = cuda::DeviceBuffer(floats(rows_ * cols_));
  d_a_.upload(a_.data(), floats(rows_ * cols_));
  d_x_ = cuda::DeviceBuffer(floats(cols_));
  d_x_.upload(x_.data(), floats(cols_));
  d_y_ = cuda::DeviceBuffer(floats(rows_));
  d_partial_ = cuda::DeviceBuffer(floats(matvec_max_splits(cols_) * rows_));
  // One counter per row tile; a tile has at least one row.
  d_counters_ = cuda::DeviceBuffer(static_cast<std::size_t>(rows_) * sizeof(unsigned));
  const std::vector<unsigned> zeros(static_cast<std::size_t>(rows_), 0U);
  d_counters_.upload(zeros.data(), zeros.size() * sizeof(unsigned));
  verifier_ = DeviceVerifier(reference_, tolerance_, context);
}

std::vector<void*> MatvecWorkload::kernel_args(const search::Config& config) {
  arg_a_ = d_a_.get();
  arg_x_ = d_x_.get();
  arg_y_ = d_y_.get();
  arg_partial_ = d_partial_.get();
  arg_counters_ = d_counters_.get();
  arg_m_ = rows_;
  arg_n_ = cols_;
  arg_chunk_ = matvec_chunk(cols_, config.at("splits"));
  return {&arg_a_, &arg_x_, &arg_y_, &arg_m_, &arg_n_, &arg_chunk_, &arg_partial_, &arg_counters_};
}

void MatvecWorkload::poison(CUstream stream) {
  poison_output_only(stream);
  d_counters_.fill_u32(0U, stream);
}

void MatvecWorkload::poison_output_only(CUstream stream) { d_y_.fill_u32(0x7FC00000U, stream); } // quiet NaN

Verification MatvecWorkload::verify(CUstream stream) { return verifier_.verify(d_y_.get(), stream); }

std::unique_ptr<Baseline> MatvecWorkload::make_baseline(const std::string& name) {
  if (name != "cublas") throw std::invalid_argument("matvec has no baseline '" + name + "' (known: cublas)");
  // rows and cols are at most 2^31 - 1 (the problem's limits): cuBLAS's int sizes hold them.
  return std::make_unique<CublasSgemv>(layout_, static_cast<int>(rows_), static_cast<int>(cols_),
                                       device_pointer<const float>(d_a_), device_pointer<const float>(d_x_),
                                       device_pointer<float>(d_y_));
}

} // namespace memtune::templates
