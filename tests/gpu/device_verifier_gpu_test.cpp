// The on-GPU comparison must agree with the CPU one: it is what decides
// wrong_result for every measured candidate.
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/cuda/stream.hpp>
#include <memtune/measure/device_verifier.hpp>
#include <memtune/measure/verify.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

using namespace memtune;

TEST_CASE("device verifier agrees with the CPU comparison") {
  cuda::Context context(0);
  cuda::Stream stream;
  int major = 0, minor = 0;
  MEMTUNE_CU(cuda::driver_api().cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, context.device()));
  MEMTUNE_CU(cuda::driver_api().cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, context.device()));

  std::vector<double> ref(1000003);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::cos(static_cast<double>(i));
  std::vector<float> out(ref.begin(), ref.end());
  DeviceVerifier verifier(ref, 1e-6, {major * 10 + minor, nullptr});
  cuda::DeviceBuffer d_out(out.size() * sizeof(float));

  d_out.upload(out.data(), out.size() * sizeof(float));
  Verification v = verifier.verify(d_out.get(), stream.get());
  CHECK(v.ok);
  CHECK(v.max_abs_error <= 1e-6);

  out[999999] += 0.5F;
  out[17] = std::numeric_limits<float>::quiet_NaN();
  d_out.upload(out.data(), out.size() * sizeof(float));
  v = verifier.verify(d_out.get(), stream.get());
  const Verification cpu = compare_with_reference(out, ref, 1e-6);
  CHECK_FALSE(v.ok);
  CHECK(v.bad_count == cpu.bad_count);
  CHECK(v.bad_count == 2);
  CHECK(v.first_bad == 17);
  CHECK(std::isinf(v.max_abs_error));

  d_out.fill_u32(0x7FC00000U, stream.get()); // the poison: nothing written
  v = verifier.verify(d_out.get(), stream.get());
  CHECK(v.bad_count == static_cast<std::int64_t>(ref.size()));
}
