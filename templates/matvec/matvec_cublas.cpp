#include "matvec_cublas.hpp"

#include "cublas_loader.hpp"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

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

template <class T> T* device_pointer(CUdeviceptr p) { return reinterpret_cast<T*>(static_cast<std::uintptr_t>(p)); }

} // namespace

std::unique_ptr<Baseline> make_cublas_sgemv(MatvecLayout layout, std::int64_t rows, std::int64_t cols, CUdeviceptr a,
                                            CUdeviceptr x, CUdeviceptr y) {
  return std::make_unique<CublasSgemv>(layout, static_cast<int>(rows), static_cast<int>(cols),
                                       device_pointer<const float>(a), device_pointer<const float>(x),
                                       device_pointer<float>(y));
}

} // namespace memtune::templates
