#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/compile/nvrtc_error.hpp>

#include <doctest/doctest.h>

using namespace memtune::cuda;

TEST_CASE("the driver is loaded at run time: its absence is a reason, not a crash") {
  if (driver_available()) {
    CHECK(driver_unavailable_reason().empty());
    const bool resolved = driver_api().cuInit != nullptr;
    CHECK(resolved);
  } else {
    CHECK_FALSE(driver_unavailable_reason().empty());
    CHECK_THROWS_AS(driver_api(), DriverUnavailable);
  }
}

TEST_CASE("errors carry the code, the call and the place") {
  const DriverError e(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc(&p, n)", "x.cpp", 12);
  const std::string what = e.what();
  CHECK(what.find("cuMemAlloc(&p, n)") != std::string::npos);
  CHECK(what.find("x.cpp:12") != std::string::npos);
  CHECK(what.find(driver_available() ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUresult 2") != std::string::npos);
  CHECK_FALSE(e.is_sticky());
  CHECK(DriverError(CUDA_ERROR_ILLEGAL_ADDRESS, "k", "x.cpp", 1).is_sticky());
  const NvrtcError n(NVRTC_ERROR_INVALID_OPTION, "nvrtcCompileProgram(p)", "y.cpp", 3);
  CHECK(std::string(n.what()).find("NVRTC_ERROR_INVALID_OPTION") != std::string::npos);
  CHECK(std::string(n.what()).find("y.cpp:3") != std::string::npos);
  CHECK_THROWS_AS(MEMTUNE_NVRTC(NVRTC_ERROR_INVALID_INPUT), NvrtcError);
  CHECK_NOTHROW(MEMTUNE_CU_NOTHROW(CUDA_ERROR_INVALID_VALUE));
}
