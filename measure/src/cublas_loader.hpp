#pragma once
// cuBLAS, loaded at run time (dlopen), for baselines: memtune never links it,
// and runs where it is missing. Tries libcublas.so.13, libcublas.so.12 and
// libcublas.so by name, then in the CUDA toolkit's library folder found at
// build time. Only the four entry points a gemv baseline needs, declared here
// with their C signatures (cublas_api.h): the handle is an opaque pointer,
// cublasOperation_t an int (CUBLAS_OP_N = 0, CUBLAS_OP_T = 1), status 0 is
// success.
//
//   const CublasApi& api = cublas_api();            // never throws
//   if (!api.loaded()) std::cerr << api.error;      // names the libraries and symbols tried
#include <cuda.h>

#include <string>

namespace memtune::measure_detail {

using cublas_handle = void*;
inline constexpr int kCublasOpN = 0;
inline constexpr int kCublasOpT = 1;

struct CublasApi {
  using Create = int (*)(cublas_handle*);
  using Destroy = int (*)(cublas_handle);
  using SetStream = int (*)(cublas_handle, CUstream); // cudaStream_t and CUstream are one type
  using Sgemv = int (*)(cublas_handle, int trans, int m, int n, const float* alpha, const float* a, int lda,
                        const float* x, int incx, const float* beta, float* y, int incy);

  Create create = nullptr;      // cublasCreate_v2
  Destroy destroy = nullptr;    // cublasDestroy_v2
  SetStream set_stream = nullptr; // cublasSetStream_v2
  Sgemv sgemv = nullptr;        // cublasSgemv_v2
  std::string library;          // the file that was loaded
  std::string error;            // why not loaded; empty when loaded

  [[nodiscard]] bool loaded() const { return error.empty(); }
};

// Loads once (thread-safe) and keeps the library loaded for the process.
const CublasApi& cublas_api();

// The name of a cublasStatus_t ("CUBLAS_STATUS_NOT_INITIALIZED"), or the number.
std::string cublas_status_name(int status);

} // namespace memtune::measure_detail
