// examples/kernels/stencil: the user's 5-point stencil run on the CPU for
// every configuration of its description's space (and its reference kernel),
// launched with the description's grid and block, on odd grids: inside points
// take the stencil, boundary points are copied, nothing else is written.
#include <memtune/description/random_data.hpp>

#include "user_kernel_emulation.hpp"

#include <doctest/doctest.h>

#include "../templates/device_code_begin.hpp"
#include "../../examples/kernels/stencil/stencil.cu"
#include "../templates/device_code_end.hpp"

namespace {

using Runner = void (*)(const memtune::LaunchSpec&, float*, const float*, int, int, float, float);

std::map<std::vector<std::int64_t>, Runner> runners() {
  std::map<std::vector<std::int64_t>, Runner> out;
  for_each_value<32, 64, 128>([&]<int BX>() {
    for_each_value<1, 2, 4, 8, 16>([&]<int BY>() {
      for_each_value<1, 2, 4, 8>([&]<int ITEMS>() {
        for_each_value<0, 1>([&]<int LOADS>() {
          out[{BX, BY, ITEMS, LOADS}] = [](const memtune::LaunchSpec& l, float* o, const float* in, int nx, int ny,
                                           float c0, float c1) {
            cuda_emulation::run(l, [&] { stencil<BX, BY, ITEMS, static_cast<user::Loads>(LOADS)>(o, in, nx, ny, c0, c1); });
          };
        });
      });
    });
  });
  return out;
}

std::vector<float> expected(const std::vector<float>& in, int nx, int ny, float c0, float c1) {
  std::vector<float> out(in);
  for (int y = 1; y < ny - 1; ++y)
    for (int x = 1; x < nx - 1; ++x) {
      const std::size_t at = static_cast<std::size_t>(y) * nx + x;
      out[at] = std::fma(c1, (in[at - 1] + in[at + 1]) + (in[at - nx] + in[at + nx]), c0 * in[at]);
    }
  return out;
}

} // namespace

TEST_CASE("examples/kernels/stencil on the CPU: every configuration and the reference kernel at odd grids") {
  const memtune::KernelDescription d = memtune::load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/stencil/stencil.json");
  const memtune::Target& h100 = catalogue_target("h100-sxm");
  const float c0 = 0.6F, c1 = 0.1F;
  // Partial blocks both ways; one inner row over several blocks in x.
  for (const auto& [nx, ny] : {std::pair{37, 29}, std::pair{130, 3}}) {
    CAPTURE(nx);
    CAPTURE(ny);
    const std::size_t n = static_cast<std::size_t>(nx) * ny;
    std::vector<float> in(n);
    memtune::fill_random(in, 3 + n);
    const std::vector<float> want = expected(in, nx, ny, c0, c1);
    const auto check = [&](const std::function<void(float*)>& run) {
      std::vector<float> out(n + 64, 12345.0F);
      std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), std::nanf(""));
      run(out.data());
      CHECK(std::vector<float>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n)) == want);
      CHECK(std::count(out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), 12345.0F) == 64);
    };
    const std::size_t ran = for_each_config(d, h100, {{"nx", nx}, {"ny", ny}}, runners(),
                                            [&](const memtune::search::Config& c, const memtune::LaunchSpec& l, Runner run) {
                                              // The wide grid for the narrowest blocks only (several blocks in x).
                                              if (nx == 130 && c.at("BX") != 32) return;
                                              check([&](float* out) { run(l, out, in.data(), nx, ny, c0, c1); });
                                            });
    CHECK(ran == 104);
    const memtune::LaunchSpec reference = d.reference_launch(d.complete({{"nx", nx}, {"ny", ny}}), h100);
    CHECK(reference.name_expression == "stencil_reference");
    check([&](float* out) {
      cuda_emulation::run(reference, [&] { stencil_reference(out, in.data(), nx, ny, c0, c1); });
    });
  }
}
