// The GPU's fill kernel (measure/src/device_fill.cpp) against the host fill:
// the same bytes for every fill it follows, so a C++ reference computed from
// the host's copy sees what the kernel read.
#include <memtune/cuda/buffer.hpp>
#include <memtune/cuda/context.hpp>
#include <memtune/cuda/driver_api.hpp>
#include <memtune/cuda/error.hpp>
#include <memtune/description/fill.hpp>
#include <memtune/measure/device.hpp>
#include <memtune/measure/device_fill.hpp>

#include <doctest/doctest.h>

#include <cstring>
#include <vector>

using namespace memtune;
using namespace memtune::description_detail;

TEST_CASE("the GPU fills what the host fills, bit for bit, for every fill it follows") {
  cuda::Context context{0};
  const Target target = local_target(0);
  const FillKernel kernel(UploadContext{target.compute_capability(), nullptr});
  Fill constant;
  constant.kind = Fill::Kind::constant;
  constant.value = -7.25;
  const struct {
    const char* what;
    Fill fill;
    ElementType type;
  } cases[] = {
      {"float, default", Fill{}, ElementType::f32},
      {"float4, default", Fill{}, vector_type(ElementType::f32, 4)},
      {"double, default", Fill{}, ElementType::f64},
      {"float in [-3, 5]", Fill::random_in(-3, 5), ElementType::f32},
      {"double in [1e-3, 2]", Fill::random_in(1e-3, 2), ElementType::f64},
      {"int8 in [-128, 127]", Fill::random_in(-128, 127), ElementType::i8},
      {"int16, default", Fill{}, ElementType::i16},
      {"uint32 in [0, 4e9]", Fill::random_in(0, 4e9), ElementType::u32},
      {"int64 in [-5e15, 7e15]", Fill::random_in(-5e15, 7e15), ElementType::i64},
      {"uint64, every value", Fill::random_in(0, 18446744073709551615.0), ElementType::u64},
      {"float constant", constant, ElementType::f32},
      {"int32 constant", constant, ElementType::i32},
  };
  constexpr std::int64_t count = 1000003; // more than one grid of the kernel's blocks
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto rule = fill_rule(c.fill, c.type, count, 42);
    REQUIRE(rule);
    const std::vector<std::byte> host = fill_host(c.fill, c.type, count, FillRequest{{}, {}, 42});
    cuda::DeviceBuffer device(host.size());
    kernel.fill(device.get(), *rule, nullptr);
    MEMTUNE_CU(cuda::driver_api().cuStreamSynchronize(nullptr));
    std::vector<std::byte> back(host.size());
    device.download(back.data(), back.size());
    std::size_t first_difference = host.size();
    for (std::size_t i = 0; i < host.size() && first_difference == host.size(); ++i)
      if (host[i] != back[i]) first_difference = i;
    CHECK(first_difference == host.size());
  }
}
