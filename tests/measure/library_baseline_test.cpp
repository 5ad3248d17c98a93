// The baselines memtune provides (measure/src/library_baseline.cpp): found by
// name before a description's C++ ones, their operands range-checked on the
// way to the library, and cuBLAS loaded at run time or reported missing.
#include <memtune/description/kernel_builder.hpp>
#include <memtune/measure/library_baseline.hpp>

#include "measure/src/cublas_loader.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using namespace memtune;

namespace {

KernelBuilder gemv(const std::string& rows) {
  KernelBuilder b("gemv");
  b.source("gemv.cu", "__global__ void gemv(const float* A, const float* x, float* y, int m, int n) {}\n")
      .kernel("gemv")
      .size("m", 64, "rows")
      .size("n", 64, "cols")
      .parameter(search::Axis::ordinal("BLOCK", {128}))
      .block("BLOCK")
      .grid("ceil_div(m, BLOCK)")
      .buffer("A", ElementType::f32, "m * n", BufferRole::in)
      .buffer("x", ElementType::f32, "n", BufferRole::in)
      .buffer("y", ElementType::f32, "m", BufferRole::out)
      .scalar("m", ElementType::i32, "m")
      .scalar("n", ElementType::i32, "n")
      .verify_with_config({{"BLOCK", 128}}, {0.0, 1e-6})
      .library_baseline("cublas", "cublas_sgemv", {{"A", "A"}, {"x", "x"}, {"y", "y"}},
                        {{"rows", rows}, {"cols", "n"}, {"row_major", "0"}});
  return b;
}

} // namespace

TEST_CASE("make_baseline: none of that name is nullptr; an operand out of the call's range names its field") {
  const KernelDescription d = gemv("m - 64").build();
  const Problem p = d.complete({});
  const BaselineContext context{p, [](const std::string&) { return CUdeviceptr{0}; }};
  CHECK(make_baseline(d, "magma", context) == nullptr);
  // rows = m - 64 = 0: cuBLAS takes 1..2^31-1, refused before any library call.
  CHECK_THROWS_WITH_AS((void)make_baseline(d, "cublas", context),
                       doctest::Contains("baselines.cublas.values.rows = 0 for this problem: cublas_sgemv takes 1.."),
                       std::invalid_argument);
}

TEST_CASE("cuBLAS loader: finds the library or says which files it tried") {
  const auto& api = measure_detail::cublas_api();
  if (api.loaded()) {
    MESSAGE("cuBLAS loaded from " << api.library);
    const bool all_symbols = api.create != nullptr && api.destroy != nullptr && api.set_stream != nullptr && api.sgemv != nullptr;
    CHECK(all_symbols);
  } else {
    MESSAGE("cuBLAS not loaded: " << api.error);
    CHECK(api.error.find("libcublas.so") != std::string::npos);
  }
  CHECK(measure_detail::cublas_status_name(0) == "CUBLAS_STATUS_SUCCESS");
  CHECK(measure_detail::cublas_status_name(13) == "CUBLAS_STATUS_EXECUTION_FAILED");
  CHECK(measure_detail::cublas_status_name(99) == "cuBLAS status 99");
}
