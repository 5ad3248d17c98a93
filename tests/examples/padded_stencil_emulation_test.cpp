// examples/kernels/padded_stencil: the FDTD3d-style step run on the CPU for
// every configuration of its description's space, on the layout the
// description gives: offset (28) + count elements per buffer, the kernel's
// pointers 28 floats in. Inner points take the stencil, the halo and the
// padding stay poisoned (the output is marked partial), and every row's
// first inner point is 128-byte aligned.
#include <memtune/description/random_data.hpp>

#include "user_kernel_emulation.hpp"

#include <memtune/description/argument_values.hpp>

#include <doctest/doctest.h>

#include "../templates/device_code_begin.hpp"
#include "../../examples/kernels/padded_stencil/padded_stencil.cu"
#include "../templates/device_code_end.hpp"

namespace {

using Runner = void (*)(const memtune::LaunchSpec&, float*, const float*, int, int, int, int);

std::map<std::vector<std::int64_t>, Runner> runners() {
  std::map<std::vector<std::int64_t>, Runner> out;
  for_each_value<16, 32, 64, 128>([&]<int BX>() {
    for_each_value<1, 2, 4, 8, 16>([&]<int BY>() {
      out[{BX, BY}] = [](const memtune::LaunchSpec& l, float* o, const float* in, int dx, int dy, int dz, int pitch) {
        cuda_emulation::run(l, [&] { fdtd_step<BX, BY>(o, in, dx, dy, dz, pitch); });
      };
    });
  });
  return out;
}

} // namespace

TEST_CASE("examples/kernels/padded_stencil on the CPU: buffer + 28, inner points written, halo and padding untouched") {
  const memtune::KernelDescription d =
      memtune::load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/padded_stencil/padded_stencil.json");
  const memtune::Target& h100 = catalogue_target("h100-sxm");
  const int dx = 37, dy = 19, dz = 6;
  const memtune::Problem problem = d.complete({{"dimx", dx}, {"dimy", dy}, {"dimz", dz}});
  const auto& output = std::get<memtune::BufferArgument>(d.arguments[0]);
  CHECK(output.partial);
  const memtune::search::Config env = d.environment(d.default_config(problem, h100), problem, h100);
  const std::int64_t offset = memtune::description_detail::buffer_offset(d, output.offset, env, "arguments[0]");
  const std::int64_t count = memtune::description_detail::buffer_count(d, output, env, "arguments[0]");
  const int pitch = static_cast<int>(env.at("pitch"));
  CHECK(offset == 28);
  CHECK(pitch == 64);
  CHECK(count == std::int64_t{pitch} * (dy + 8) * (dz + 8));
  // The first inner point of every row: offset + 4 + row * pitch floats from the allocation, 128-byte aligned.
  CHECK((offset + 4) * 4 % 128 == 0);
  CHECK(pitch * 4 % 128 == 0);

  for (int r = 0; r <= 4; ++r) stencil[r] = 0.1F * static_cast<float>(r + 1);
  const std::size_t allocation = static_cast<std::size_t>(offset + count);
  std::vector<float> in(allocation);
  memtune::fill_random(in, 11);
  const float* input = in.data() + offset;
  const int stride_z = pitch * (dy + 8);
  std::vector<float> want(allocation, std::nanf(""));
  for (int z = 0; z < dz; ++z)
    for (int y = 0; y < dy; ++y)
      for (int x = 0; x < dx; ++x) {
        const int at = (z + 4) * stride_z + (y + 4) * pitch + x + 4;
        float v = stencil[0] * input[at];
        for (int r = 1; r <= 4; ++r)
          v += stencil[r] * (input[at - r] + input[at + r] + input[at - r * pitch] + input[at + r * pitch] +
                             input[at - r * stride_z] + input[at + r * stride_z]);
        want[static_cast<std::size_t>(offset + at)] = v;
      }
  const auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
  };
  const std::size_t ran = for_each_config(d, h100, problem, runners(),
                                          [&](const memtune::search::Config&, const memtune::LaunchSpec& l, Runner run) {
                                            std::vector<float> out(allocation, std::nanf("")); // poisoned, as memtune does
                                            run(l, out.data() + offset, input, dx, dy, dz, pitch);
                                            CHECK(same(out, want));
                                          });
  CHECK(ran == 16);
}
