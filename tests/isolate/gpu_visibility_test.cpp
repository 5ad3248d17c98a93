// The CUDA_VISIBLE_DEVICES value that shows a worker its own GPU only
// (isolate/include/memtune/isolate/gpu_visibility.hpp).
#include <memtune/isolate/gpu_visibility.hpp>

#include <doctest/doctest.h>

using memtune::isolation::single_gpu_visibility;

TEST_CASE("unset: the ordinal itself") {
  CHECK(single_gpu_visibility(0, nullptr) == "0");
  CHECK(single_gpu_visibility(3, nullptr) == "3");
  CHECK_FALSE(single_gpu_visibility(-1, nullptr));
}

TEST_CASE("a list the driver reads as written: its entry d") {
  CHECK(single_gpu_visibility(0, "2,3") == "2");
  CHECK(single_gpu_visibility(1, "2, 3") == "3");
  CHECK(single_gpu_visibility(1, "GPU-8c1f0e2a-66a1-4a5f-9e0d-1b2c3d4e5f60,GPU-0a1b") == "GPU-0a1b");
  CHECK(single_gpu_visibility(0, "MIG-5c4b2a1e-aaaa-bbbb-cccc-0123456789ab") ==
        "MIG-5c4b2a1e-aaaa-bbbb-cccc-0123456789ab");
  CHECK_FALSE(single_gpu_visibility(2, "2,3")); // this process has no GPU 2
}

TEST_CASE("anything the driver might read otherwise: the worker sees what this process sees") {
  CHECK_FALSE(single_gpu_visibility(0, ""));     // no GPU at all
  CHECK_FALSE(single_gpu_visibility(0, "1,1"));  // a repeat ends the driver's list
  CHECK_FALSE(single_gpu_visibility(0, "1,01")); // the same GPU, written twice
  CHECK_FALSE(single_gpu_visibility(0, "0,x"));
  CHECK_FALSE(single_gpu_visibility(0, "-1"));
  CHECK_FALSE(single_gpu_visibility(0, "0,,1"));
  CHECK_FALSE(single_gpu_visibility(0, "0,"));
  CHECK_FALSE(single_gpu_visibility(0, "GPU-"));
  CHECK_FALSE(single_gpu_visibility(0, "GPU-zz"));
  CHECK_FALSE(single_gpu_visibility(0, " "));
  CHECK_FALSE(single_gpu_visibility(0, ","));
  // An ordinal no host has is passed on as written: that worker finds no GPU
  // and is started again seeing what this process sees (WorkerPool).
  CHECK(single_gpu_visibility(0, "123456789012345678901234567890") == "123456789012345678901234567890");
  CHECK(single_gpu_visibility(0, "0,5") == "0");
}
