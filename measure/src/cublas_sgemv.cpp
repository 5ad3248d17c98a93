// The library baseline "cublas_sgemv" (library_baseline_calls): y = A x with
// cublasSgemv (loaded at run time, cublas_loader.hpp) on the run's own
// buffers, so it is timed and verified like every candidate.
#include "cublas_loader.hpp"
#include "library_baselines.hpp"

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace memtune::measure_detail {
namespace {

// Column-major A is sgemv(N) with lda = rows; row-major A is the column-major
// cols x rows matrix A^T, so y = (A^T)^T x is sgemv(T) with m = cols, n = rows,
// lda = cols.
class CublasSgemv final : public Baseline {
public:
  CublasSgemv(bool row_major, int rows, int cols, const float* a, const float* x, float* y)
      : row_major_(row_major), rows_(rows), cols_(cols), a_(a), x_(x), y_(y) {
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
  CublasSgemv(const CublasSgemv&) = delete;
  CublasSgemv& operator=(const CublasSgemv&) = delete;

  [[nodiscard]] std::string description() const override { return "cuBLAS sgemv"; }
  [[nodiscard]] bool available() const override { return handle_ != nullptr; }
  [[nodiscard]] std::string unavailable_reason() const override { return reason_; }

  void launch(CUstream stream) override {
    const CublasApi& api = cublas_api();
    check(api.set_stream(handle_, stream), "cublasSetStream_v2");
    const float alpha = 1.0F, beta = 0.0F; // beta = 0: y is not read, so its NaN poison cannot leak in
    if (!row_major_)
      check(api.sgemv(handle_, kCublasOpN, rows_, cols_, &alpha, a_, rows_, x_, 1, &beta, y_, 1), "cublasSgemv_v2");
    else
      check(api.sgemv(handle_, kCublasOpT, cols_, rows_, &alpha, a_, cols_, x_, 1, &beta, y_, 1), "cublasSgemv_v2");
  }

private:
  static void check(int status, const char* call) {
    if (status != 0) throw std::runtime_error(std::string(call) + " failed with " + cublas_status_name(status));
  }
  bool row_major_;
  int rows_, cols_;
  const float* a_;
  const float* x_;
  float* y_;
  cublas_handle handle_ = nullptr;
  std::string reason_;
};

template <class T> T* device_pointer(CUdeviceptr p) { return reinterpret_cast<T*>(static_cast<std::uintptr_t>(p)); }

} // namespace

std::unique_ptr<Baseline> make_cublas_sgemv(const BoundBaseline& b) {
  return std::make_unique<CublasSgemv>(b.value("row_major", 0, 1) != 0, static_cast<int>(b.value("rows", 1, INT32_MAX)),
                                       static_cast<int>(b.value("cols", 1, INT32_MAX)),
                                       device_pointer<const float>(b.buffer("A", ElementType::f32)),
                                       device_pointer<const float>(b.buffer("x", ElementType::f32)),
                                       device_pointer<float>(b.buffer("y", ElementType::f32)));
}

} // namespace memtune::measure_detail
