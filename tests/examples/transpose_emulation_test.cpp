// examples/kernels/transpose: the user's transpose run on the CPU for every
// configuration of its description's space, launched with the description's
// grid and block, on odd shapes; every output equals the input's transpose
// and nothing past the output is written.
#include <memtune/description/random_data.hpp>

#include "user_kernel_emulation.hpp"

#include <doctest/doctest.h>

#include <cstring>

#include "../templates/device_code_begin.hpp"
#include "../../examples/kernels/transpose/transpose.cu"
#include "../templates/device_code_end.hpp"

namespace {

using Runner = void (*)(const memtune::LaunchSpec&, float*, const float*, int, int);

std::map<std::vector<std::int64_t>, Runner> runners() {
  std::map<std::vector<std::int64_t>, Runner> out;
  for_each_value<16, 32, 64>([&]<int TILE>() {
    for_each_value<4, 8, 16, 32>([&]<int ROWS>() {
      for_each_value<0, 1, 2>([&]<int SMEM>() {
        for_each_value<0, 1>([&]<int ORDER>() {
          out[{TILE, ROWS, SMEM, ORDER}] = [](const memtune::LaunchSpec& l, float* o, const float* in, int rows, int cols) {
            cuda_emulation::run(l, [&] {
              transpose<TILE, ROWS, static_cast<user::Smem>(SMEM), static_cast<user::Order>(ORDER)>(o, in, rows, cols);
            });
          };
        });
      });
    });
  });
  return out;
}

} // namespace

TEST_CASE("examples/kernels/transpose on the CPU: every configuration at odd shapes") {
  const memtune::KernelDescription d =
      memtune::load_description(MEMTUNE_TEST_EXAMPLES_DIR "/kernels/transpose/transpose.json");
  const auto table = runners();
  // Partial tiles both ways for every tile; tall and thin.
  for (const auto& [rows, cols] : {std::pair{37, 70}, std::pair{65, 3}}) {
    CAPTURE(rows);
    CAPTURE(cols);
    const std::size_t n = static_cast<std::size_t>(rows) * cols;
    std::vector<float> in(n);
    memtune::fill_random(in, 11 + n);
    constexpr std::size_t guard = 64;
    const std::size_t ran = for_each_config(
        d, catalogue_target("h100-sxm"), {{"rows", rows}, {"cols", cols}}, table,
        [&](const memtune::search::Config&, const memtune::LaunchSpec& l, Runner run) {
          std::vector<float> out(n + guard, std::nanf(""));
          for (std::size_t i = n; i < out.size(); ++i) out[i] = 12345.0F;
          run(l, out.data(), in.data(), rows, cols);
          std::size_t bad = 0;
          for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
              bad += out[static_cast<std::size_t>(j) * rows + i] == in[static_cast<std::size_t>(i) * cols + j] ? 0 : 1;
          for (std::size_t i = n; i < out.size(); ++i) bad += out[i] == 12345.0F ? 0 : 1;
          CHECK(bad == 0);
        });
    CHECK(ran == 60);
  }
}
